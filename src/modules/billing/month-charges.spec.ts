import { computeShares } from './cost-shares';
import { monthCharges } from './month-charges';

describe('monthCharges', () => {
  const members = [
    { userId: 'a', meals: 3 },
    { userId: 'b', meals: 2 },
    { userId: 'c', meals: 1 },
  ];

  it('charges each billed member their share, adding up to the bill to the paisa', () => {
    const bill = computeShares(900_101, members, 'proportional');
    const charges = monthCharges(bill);
    expect(charges.map((c) => [c.userId, c.amountPaise])).toEqual([
      ['a', 450_050],
      ['b', 300_034],
      ['c', 150_017],
    ]);
    expect(charges.reduce((sum, c) => sum + c.amountPaise, 0)).toBe(bill.allocatedPaise);
  });

  it('adds extras on top of the share, charges extras alone, and posts nothing for a zero charge', () => {
    const bill = computeShares(0, members, 'spec');
    const charges = monthCharges(
      bill,
      new Map([
        ['b', 1_500],
        ['z', 700],
      ]),
    );
    expect(charges).toEqual([
      { userId: 'b', sharePaise: 0, extrasPaise: 1_500, amountPaise: 1_500 },
      { userId: 'z', sharePaise: 0, extrasPaise: 700, amountPaise: 700 },
    ]);
  });
});
