import { toRupees } from '../../common/money/money';
import type { UniversityViewResponse } from './dto/analytics.dto';

/** A mess's row of the university's view, money in paise. */
export interface MessMonthRow {
  mess: { _id: string; slug: string; messName: string };
  members: number;
  activeMembers: number;
  mealsServed: number;
  totalPaise: number;
  attendanceRate: number;
  averageRating: number | null;
  healthScore: number;
  duePaise: number;
  expectedPlatesTomorrow: number | null;
  leftoverGramsPerDiner: number | null;
}

export interface UniversityTotals {
  members: number;
  activeMembers: number;
  mealsServed: number;
  totalPaise: number;
  duePaise: number;
}

export interface UniversityView {
  month: string;
  rows: MessMonthRow[];
  totals: UniversityTotals;
}

/** totalPaise / meals rounded half up to the paisa, in integers; 0 when no meal was served. */
export function costPerMealPaise(totalPaise: number, meals: number): number {
  if (meals <= 0) return 0;
  return Math.floor((2 * totalPaise + meals) / (2 * meals));
}

/** The rows added exactly (integers: counts and paise). */
export function totalsOf(rows: readonly MessMonthRow[]): UniversityTotals {
  const sum = (pick: (row: MessMonthRow) => number) => rows.reduce((total, row) => total + pick(row), 0);
  return {
    members: sum((r) => r.members),
    activeMembers: sum((r) => r.activeMembers),
    mealsServed: sum((r) => r.mealsServed),
    totalPaise: sum((r) => r.totalPaise),
    duePaise: sum((r) => r.duePaise),
  };
}

/** Rupees at the edge; each costPerMeal (the totals' too) from its own paise and meals. */
export function toUniversityViewResponse(view: UniversityView): UniversityViewResponse {
  const { totals } = view;
  return {
    success: true,
    month: view.month,
    messes: view.rows.map((row) => ({
      mess: row.mess,
      members: row.members,
      activeMembers: row.activeMembers,
      mealsServed: row.mealsServed,
      totalExpenses: toRupees(row.totalPaise),
      costPerMeal: toRupees(costPerMealPaise(row.totalPaise, row.mealsServed)),
      attendanceRate: row.attendanceRate,
      averageRating: row.averageRating,
      healthScore: row.healthScore,
      due: toRupees(row.duePaise),
      expectedPlatesTomorrow: row.expectedPlatesTomorrow,
      leftoverGramsPerDiner: row.leftoverGramsPerDiner,
    })),
    totals: {
      members: totals.members,
      activeMembers: totals.activeMembers,
      mealsServed: totals.mealsServed,
      totalExpenses: toRupees(totals.totalPaise),
      costPerMeal: toRupees(costPerMealPaise(totals.totalPaise, totals.mealsServed)),
      due: toRupees(totals.duePaise),
    },
  };
}
