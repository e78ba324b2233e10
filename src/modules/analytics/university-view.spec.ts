import { costPerMealPaise, type MessMonthRow, toUniversityViewResponse, totalsOf } from './university-view';

const row = (over: Partial<MessMonthRow>): MessMonthRow => ({
  mess: { _id: 'id', slug: 'a', messName: 'A' },
  members: 0,
  activeMembers: 0,
  mealsServed: 0,
  totalPaise: 0,
  attendanceRate: 0,
  averageRating: null,
  healthScore: 0,
  duePaise: 0,
  expectedPlatesTomorrow: null,
  leftoverGramsPerDiner: null,
  ...over,
});

describe('university view', () => {
  it('rounds the cost per meal half up to the paisa, 0 without meals', () => {
    expect(costPerMealPaise(1000, 3)).toBe(333); // 333.33
    expect(costPerMealPaise(2000, 3)).toBe(667); // 666.67
    expect(costPerMealPaise(5, 2)).toBe(3); // 2.5 → 3
    expect(costPerMealPaise(15, 10)).toBe(2); // 1.5 → 2
    expect(costPerMealPaise(14, 10)).toBe(1);
    expect(costPerMealPaise(100_000, 0)).toBe(0);
    expect(costPerMealPaise(0, 7)).toBe(0);
    // Large months stay exact: ₹5 crore over 1,00,000 meals.
    expect(costPerMealPaise(5_000_000_000, 100_000)).toBe(50_000);
    expect(costPerMealPaise(5_000_000_001, 2)).toBe(2_500_000_001);
  });

  it('adds the rows exactly and computes the totals’ cost per meal from the totals', () => {
    const rows = [
      row({ members: 3, activeMembers: 2, mealsServed: 3, totalPaise: 1000, duePaise: 10 }),
      row({ members: 5, activeMembers: 5, mealsServed: 7, totalPaise: 1, duePaise: 7 }),
      row({ members: 1 }),
    ];
    const totals = totalsOf(rows);
    expect(totals).toEqual({ members: 9, activeMembers: 7, mealsServed: 10, totalPaise: 1001, duePaise: 17 });
    const answer = toUniversityViewResponse({ month: '2025-03', rows, totals });
    expect(answer.messes.map((m) => m.costPerMeal)).toEqual([3.33, 0, 0]); // 1 paisa over 7 meals: 0.14 paise → 0;
    expect(answer.totals).toEqual({
      members: 9,
      activeMembers: 7,
      mealsServed: 10,
      totalExpenses: 10.01,
      costPerMeal: 1, // 100.1 paise → 100
      due: 0.17,
    });
  });
});
