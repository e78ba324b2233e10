import { computeShares } from './cost-shares';

const members = [
  { userId: 'a', meals: 30 },
  { userId: 'b', meals: 20 },
  { userId: 'c', meals: 10 },
  { userId: 'z', meals: 0 }, // ate nothing: not active, no share
];

describe('computeShares', () => {
  it('follows the contract literally (method spec)', () => {
    // total ₹9,000 = 900000 paise; 3 active members; 60 meals.
    // a: 900000/3 × 30/60 = 150000; b: 300000 × 20/60 = 100000; c: 300000 × 10/60 = 50000; sum = 300000 = total/3
    const bill = computeShares(900000, members, 'spec');
    expect(bill).toEqual({
      method: 'spec',
      totalPaise: 900000,
      activeMembers: 3,
      totalMeals: 60,
      allocatedPaise: 300000,
      unallocatedPaise: 600000,
      shares: [
        { userId: 'a', meals: 30, sharePaise: 150000 },
        { userId: 'b', meals: 20, sharePaise: 100000 },
        { userId: 'c', meals: 10, sharePaise: 50000 },
      ],
    });
  });

  it('recovers the whole total with method proportional', () => {
    const bill = computeShares(900000, members, 'proportional');
    expect(bill.shares.map((s) => s.sharePaise)).toEqual([450000, 300000, 150000]);
    expect(bill.allocatedPaise).toBe(900000);
    expect(bill.unallocatedPaise).toBe(0);
  });

  it('assigns the paise left by rounding to the largest remainders, explicitly', () => {
    // ₹100.00 over 3 equal eaters: 3333.33… each → 3334, 3333, 3333 (tie broken by member id)
    const equal = [
      { userId: 'b', meals: 1 },
      { userId: 'a', meals: 1 },
      { userId: 'c', meals: 1 },
    ];
    const bill = computeShares(10000, equal, 'proportional');
    expect(bill.shares).toEqual([
      { userId: 'a', meals: 1, sharePaise: 3334 },
      { userId: 'b', meals: 1, sharePaise: 3333 },
      { userId: 'c', meals: 1, sharePaise: 3333 },
    ]);
    expect(bill.allocatedPaise + bill.unallocatedPaise).toBe(10000);

    // spec: total/active = 3333.33… → allocate 3333 paise; shares 1111 each
    const spec = computeShares(10000, equal, 'spec');
    expect(spec.shares.map((s) => s.sharePaise)).toEqual([1111, 1111, 1111]);
    expect(spec.allocatedPaise).toBe(3333);
    expect(spec.unallocatedPaise).toBe(6667);
  });

  it('rounds with remainders: 7 meals split 4/2/1 of ₹10.00', () => {
    // exact: 5714.2857, 2857.1428, 1428.5714 → floors 5714+2857+1428 = 9999; one paisa to the largest remainder (c: .5714)
    const bill = computeShares(
      10000,
      [
        { userId: 'a', meals: 4 },
        { userId: 'b', meals: 2 },
        { userId: 'c', meals: 1 },
      ],
      'proportional',
    );
    expect(bill.shares.map((s) => [s.userId, s.sharePaise])).toEqual([
      ['a', 5714],
      ['b', 2857],
      ['c', 1429],
    ]);
  });

  it('never divides by zero', () => {
    expect(computeShares(50000, [{ userId: 'a', meals: 0 }], 'spec')).toMatchObject({
      activeMembers: 0,
      totalMeals: 0,
      allocatedPaise: 0,
      unallocatedPaise: 50000,
      shares: [],
    });
    expect(computeShares(0, members, 'proportional')).toMatchObject({
      allocatedPaise: 0,
      unallocatedPaise: 0,
      shares: [
        { userId: 'a', meals: 30, sharePaise: 0 },
        { userId: 'b', meals: 20, sharePaise: 0 },
        { userId: 'c', meals: 10, sharePaise: 0 },
      ],
    });
  });

  it('stays exact at scale (2,000 members, ₹12,34,567.89)', () => {
    const many = Array.from({ length: 2000 }, (_, i) => ({
      userId: `m${String(i).padStart(4, '0')}`,
      meals: (i % 90) + 1,
    }));
    for (const method of ['spec', 'proportional'] as const) {
      const bill = computeShares(123456789, many, method);
      const sum = bill.shares.reduce((s, x) => s + x.sharePaise, 0);
      expect(sum).toBe(bill.allocatedPaise);
      expect(bill.allocatedPaise + bill.unallocatedPaise).toBe(123456789);
    }
  });

  it('stays exact past 2^53 (the BigInt path)', () => {
    const total = 4_000_000_000_000_001; // × 3 meals overflows plain integers
    const bill = computeShares(
      total,
      [
        { userId: 'a', meals: 3 },
        { userId: 'b', meals: 1 },
        { userId: 'c', meals: 1 },
      ],
      'proportional',
    );
    // exact: 2400000000000000.6, 800000000000000.2 ×2 → floors leave 1 paisa for a (largest remainder .6)
    expect(bill.shares.map((s) => s.sharePaise)).toEqual([
      2_400_000_000_000_001, 800_000_000_000_000, 800_000_000_000_000,
    ]);
    expect(bill.allocatedPaise).toBe(total);
  });
});
