import { computeShares } from './cost-shares';
import { billLines, chargeItems, monthCharges, ratePerMealPaise } from './month-charges';

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

  it('lists members with meals in bill order, then extras-only members by id, each total = share + extras', () => {
    const bill = computeShares(600, members, 'proportional');
    const lines = billLines(
      bill,
      new Map([
        ['z', 700],
        ['c', 5],
        ['y', 1],
      ]),
    );
    expect(lines).toEqual([
      { userId: 'a', meals: 3, sharePaise: 300, extrasPaise: 0, totalPaise: 300 },
      { userId: 'b', meals: 2, sharePaise: 200, extrasPaise: 0, totalPaise: 200 },
      { userId: 'c', meals: 1, sharePaise: 100, extrasPaise: 5, totalPaise: 105 },
      { userId: 'y', meals: 0, sharePaise: 0, extrasPaise: 1, totalPaise: 1 },
      { userId: 'z', meals: 0, sharePaise: 0, extrasPaise: 700, totalPaise: 700 },
    ]);
    expect(monthCharges(bill, new Map([['z', 700]])).reduce((sum, c) => sum + c.amountPaise, 0)).toBe(
      bill.allocatedPaise + 700,
    );
  });
});

describe('chargeItems', () => {
  const members = [
    { userId: 'a', meals: 3 },
    { userId: 'b', meals: 2 },
    { userId: 'c', meals: 1 },
  ];

  it("gives the month's rate per meal under each method, rounded half up to the paisa; none when nobody ate", () => {
    // proportional: 9001.01 / 6 = 1500.168…; spec: 9001.01 / 3 members / 6 meals = 500.056…
    expect(ratePerMealPaise(computeShares(900_101, members, 'proportional'))).toBe(150_017);
    expect(ratePerMealPaise(computeShares(900_101, members, 'spec'))).toBe(50_006);
    expect(ratePerMealPaise(computeShares(900_101, [], 'proportional'))).toBeNull();
  });

  it('itemises a charge as the share for the meals and the extras by item, adding up to the charge', () => {
    const bill = computeShares(900_101, members, 'proportional');
    const extras = [
      { item: 'Egg', quantity: 5, unitPricePaise: 1_250, amountPaise: 6_250 },
      { item: 'Sweet', quantity: 1, unitPricePaise: 3_000, amountPaise: 3_000 },
    ];
    const [charge] = monthCharges(bill, new Map([['a', 9_250]]));
    const items = chargeItems(bill, charge, extras);
    expect(items).toEqual({
      method: 'proportional',
      meals: 3,
      ratePerMealPaise: 150_017,
      mealsPaise: 450_050,
      allMeals: 6,
      monthTotalPaise: 900_101,
      activeMembers: 3,
      extras,
      extrasPaise: 9_250,
    });
    expect(items.mealsPaise + items.extras.reduce((sum, e) => sum + e.amountPaise, 0)).toBe(
      charge.amountPaise,
    );
  });
});
