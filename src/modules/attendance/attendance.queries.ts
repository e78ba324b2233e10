import { Injectable } from '@nestjs/common';
import { monthBounds } from '../../common/time/dates';
import type { DbOrTx } from '../../database/database';
import { AttendanceAggregates } from './attendance-aggregates.repository';

export interface MemberMeals {
  userId: string;
  /** Meals marked present. */
  meals: number;
}

export interface MealTypeCounts {
  mealType: string;
  present: number;
  absent: number;
}

export interface MealTypeFigures extends MealTypeCounts {
  /** Dates with at least one member present for this meal type. */
  servedSlots: number;
}

export interface AttendanceTotals {
  present: number;
  absent: number;
  /** Members with at least one meal marked present: the contract's "active member". */
  activeMembers: number;
}

/**
 * The read-only view of attendance that other modules (analytics, cost shares, notifications) may use. Every
 * method is one aggregate query; dates are `YYYY-MM-DD` calendar dates of the mess, ranges inclusive.
 */
@Injectable()
export class AttendanceQueries {
  constructor(private readonly repository: AttendanceAggregates) {}

  /**
   * Meals each member who dines attended in a `YYYY-MM` month (the bill's inputs: a member with `dines: false` is
   * not billed, whoever marked them); members with none are absent from the list. `db`: the caller's
   * transaction, to read inside it (as the other methods taking `db`).
   */
  presentCountsByMember(month: string, db?: DbOrTx): Promise<MemberMeals[]> {
    const { first, last } = monthBounds(month);
    return this.repository.presentCountsByMember(first, last, db);
  }

  /**
   * A `YYYY-MM` month's marks per member and meal type: present, absent, and the days present as bits (bit d − 1 for
   * day d). Billing's repair tool rebuilds its kept month figures from these. `db`: the caller's transaction.
   */
  monthFiguresByMemberAndMeal(
    month: string,
    db?: DbOrTx,
  ): Promise<{ userId: string; mealType: string; meals: number; absent: number; presentDays: number }[]> {
    const { first, last } = monthBounds(month);
    return this.repository.figuresByMemberAndMeal(first, last, db);
  }

  /** Present and absent marks per meal type between two dates. */
  presentCountsByMealType(from: string, to: string): Promise<MealTypeCounts[]> {
    return this.repository.countsByMealType(from, to);
  }

  /**
   * Meal slots served per meal type between two dates: the dates on which at least one member was present at
   * that meal. Meal types with none are absent from the list.
   */
  servedSlotsByMealType(from: string, to: string): Promise<{ mealType: string; slots: number }[]> {
    return this.repository.servedSlotsByMealType(from, to);
  }

  /**
   * Present and absent marks per meal type, and the meal slots served (a date on which at least one member was
   * present for that meal type), between two dates: one grouped scan instead of two.
   */
  async mealTypeFigures(from: string, to: string, db?: DbOrTx): Promise<MealTypeFigures[]> {
    const byType = new Map<string, MealTypeFigures>();
    for (const slot of await this.repository.slotCounts(from, to, db)) {
      const figures = byType.get(slot.mealType) ?? {
        mealType: slot.mealType,
        present: 0,
        absent: 0,
        servedSlots: 0,
      };
      figures.present += slot.present;
      figures.absent += slot.absent;
      if (slot.present > 0) figures.servedSlots += 1;
      byType.set(slot.mealType, figures);
    }
    return [...byType.values()].sort((a, b) => a.mealType.localeCompare(b.mealType));
  }

  /** The present marks between two dates as, per member and meal type, the days after `from` they came. */
  presentDaysByMember(
    from: string,
    to: string,
  ): Promise<{ userId: string; mealType: string; days: number[] }[]> {
    return this.repository.presentDaysByMember(from, to);
  }

  /** Every mark between two dates (member, date, meal, status): the kitchen's history and declarations. */
  marksBetween(
    from: string,
    to: string,
  ): Promise<{ userId: string; date: string; mealType: string; status: 'present' | 'absent' }[]> {
    return this.repository.marksBetween(from, to);
  }

  /** Present and absent marks of each meal slot (date and meal type) between two dates. */
  slotCounts(
    from: string,
    to: string,
  ): Promise<{ date: string; mealType: string; present: number; absent: number }[]> {
    return this.repository.slotCounts(from, to);
  }

  /** Present marks at each of these meal slots, in any mess (the university's leftovers per diner). */
  presentAtSlotsEveryMess(
    slots: readonly { messId: string; date: string; mealType: string }[],
  ): Promise<{ messId: string; date: string; mealType: string; present: number }[]> {
    return this.repository.presentAtSlotsEveryMess(slots);
  }

  /** Present and absent marks and active members between two dates. */
  totals(from: string, to: string): Promise<AttendanceTotals> {
    return this.repository.totals(from, to);
  }

  /** Members who have marked this meal slot, present or absent (for reminders to those who have not). */
  markedUserIds(date: string, mealType: string): Promise<string[]> {
    return this.repository.markedUserIds(date, mealType);
  }

  /** Which meals of the day these members have marked, present or absent (members on leave, for the headcount). */
  markedAmong(date: string, userIds: string[]): Promise<Map<string, Set<string>>> {
    return this.repository.markedAmong(date, userIds);
  }

  /** Members marked present for one meal slot: the kitchen's expected headcount. */
  presentCount(date: string, mealType: string): Promise<number> {
    return this.repository.presentCount(date, mealType);
  }
}
