import type { ChargeItems } from './accounts.schema';
import { chargeItemLines } from './charge-item-lines';

const meals = (items: Partial<ChargeItems>): string =>
  chargeItemLines({
    method: 'proportional',
    meals: 0,
    ratePerMealPaise: null,
    mealsPaise: 0,
    extras: [],
    extrasPaise: 0,
    ...items,
  })[0].particulars;

describe('chargeItemLines: the meals line is an equation that holds', () => {
  it('reads meals of all meals × the month total = share, the inexact rate and the rounding marked', () => {
    // ₹2,34,756.17 over 450 meals: ₹521.68 a meal rounded; 15 meals come to ₹7,825.2056…
    expect(
      meals({
        meals: 15,
        ratePerMealPaise: 52_168,
        mealsPaise: 782_521,
        allMeals: 450,
        monthTotalPaise: 23_475_617,
        activeMembers: 30,
      }),
    ).toBe(
      'Meals: 15 of 450 meals × ₹2,34,756.17 = ₹7,825.21 (about ₹521.68 per meal, rounded; share rounded to the paisa by the largest remainder)',
    );
    // 12 of 450 is ₹6,260.1645…: one member pays ₹6,260.16 and another with as many meals ₹6,260.17, and both say why
    expect(
      meals({
        meals: 12,
        ratePerMealPaise: 52_168,
        mealsPaise: 626_016,
        allMeals: 450,
        monthTotalPaise: 23_475_617,
        activeMembers: 30,
      }),
    ).toBe(
      'Meals: 12 of 450 meals × ₹2,34,756.17 = ₹6,260.16 (about ₹521.68 per meal, rounded; share rounded to the paisa by the largest remainder)',
    );
    // ₹1,000 over 7 meals: a share of 2 meals is ₹285.714…, rounded by the largest remainder
    expect(
      meals({
        meals: 2,
        ratePerMealPaise: 14_286,
        mealsPaise: 28_572,
        allMeals: 7,
        monthTotalPaise: 100_000,
        activeMembers: 4,
      }),
    ).toBe(
      'Meals: 2 of 7 meals × ₹1,000.00 = ₹285.72 (about ₹142.86 per meal, rounded; share rounded to the paisa by the largest remainder)',
    );
    // an exact rate is shown as it is
    expect(
      meals({
        meals: 3,
        ratePerMealPaise: 150_000,
        mealsPaise: 450_000,
        allMeals: 4,
        monthTotalPaise: 600_000,
        activeMembers: 2,
      }),
    ).toBe('Meals: 3 of 4 meals × ₹6,000.00 = ₹4,500.00 (₹1,500.00 per meal)');
  });

  it('divides by the active members under the spec method', () => {
    expect(
      meals({
        method: 'spec',
        meals: 3,
        ratePerMealPaise: 50_006,
        mealsPaise: 150_017,
        allMeals: 6,
        monthTotalPaise: 900_101,
        activeMembers: 3,
      }),
    ).toBe(
      'Meals: 3 of 6 meals × ₹9,001.01 ÷ 3 members = ₹1,500.17 (about ₹500.06 per meal, rounded; share rounded to the paisa by the largest remainder)',
    );
  });

  it('prints a charge closed before the month figures were kept with the rate marked as rounded unless it is exact', () => {
    expect(meals({ meals: 15, ratePerMealPaise: 52_168, mealsPaise: 782_519 })).toBe(
      'Meals: 15 at about ₹521.68 per meal (rate rounded to the paisa) = ₹7,825.19',
    );
    expect(meals({ meals: 3, ratePerMealPaise: 150_000, mealsPaise: 450_000 })).toBe(
      'Meals: 3 × ₹1,500.00 per meal = ₹4,500.00',
    );
  });
});

describe('chargeItemLines: a charge by the daily rate', () => {
  const leave = { leaveId: 'l', startMealType: 'Breakfast', endMealType: 'Dinner', amountPaise: 0 };
  const daily = (rebates: NonNullable<ChargeItems['daily']>['rebates']) =>
    chargeItemLines({
      method: 'daily',
      meals: 0,
      ratePerMealPaise: null,
      mealsPaise: 0,
      extras: [],
      extrasPaise: 0,
      daily: { days: 21, ratePaise: 12_000, daysPaise: 252_000, rebates, rebatePaise: 0 },
    })
      .slice(1)
      .map((l) => [l.particulars, l.amountPaise]);

  it('prints a leave that rebates nothing with why: below every band, a 0 % band, past the cap', () => {
    const none = { ...leave, startDate: '2026-03-03', endDate: '2026-03-04', rebatedDays: 0 };
    expect(
      daily([
        { ...none, days: 2, percent: 0, leaveDays: 2, belowBands: true },
        { ...none, days: 1, percent: 0, leaveDays: 3, belowBands: false },
        { ...none, days: 4, percent: 75, leaveDays: 4, belowBands: false },
      ]),
    ).toEqual([
      ['Leave 2026-03-03 Breakfast to 2026-03-04 Dinner, 2 days: below the first band, no rebate', 0],
      ['Leave 2026-03-03 Breakfast to 2026-03-04 Dinner, 3 days: a 0 % band, no rebate', 0],
      ["Leave 2026-03-03 Breakfast to 2026-03-04 Dinner, 4 days: past the term's cap, no rebate", 0],
    ]);
  });

  it('says why a leave counts fewer days: before joining the mess, off its rolls, under the cap', () => {
    const rebate = { ...leave, startDate: '2026-04-07', endDate: '2026-04-14', percent: 100 };
    expect(
      daily([
        { ...rebate, days: 5, rebatedDays: 5, amountPaise: 60_000, leaveDays: 8, beforeJoiningDays: 3 },
        { ...rebate, days: 4, rebatedDays: 1, amountPaise: 12_000, offRollsDays: 1 },
        { ...rebate, days: 2, rebatedDays: 0, leaveDays: 5, beforeJoiningDays: 3, belowBands: true },
      ]),
    ).toEqual([
      [
        'Rebate: leave 2026-04-07 Breakfast to 2026-04-14 Dinner (8 leave days, 3 before joining the mess count ' +
          'nothing), 5 days × ₹120.00 × 100 % = -₹600.00',
        -60_000,
      ],
      [
        "Rebate: leave 2026-04-07 Breakfast to 2026-04-14 Dinner (5 leave days, 1 off the mess's rolls count " +
          "nothing, 1 under the term's cap), 1 day × ₹120.00 × 100 % = -₹120.00",
        -12_000,
      ],
      [
        'Leave 2026-04-07 Breakfast to 2026-04-14 Dinner (5 leave days, 3 before joining the mess count nothing), ' +
          '5 days: below the first band, no rebate',
        0,
      ],
    ]);
  });
});
