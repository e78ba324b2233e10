import { Injectable } from '@nestjs/common';
import { and, asc, count, eq, gte, lte, sql } from 'drizzle-orm';
import { Database, DbOrTx } from '../../database/database';
import { attendance, type AttendanceStatus } from './attendance.schema';
import { isAnyUuid, textArray } from '../../database/sql-arrays';
import { rowsOf } from '../../database/sql-rows';

/**
 * The aggregates of `attendance` other modules read, through AttendanceQueries (billing's month figures and their
 * repair, analytics, the kitchen's records, the notification schedules). AttendanceRepository writes the rows.
 */
@Injectable()
export class AttendanceAggregates {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  presentCountsByMember(
    from: string,
    to: string,
    db: DbOrTx = this.db,
  ): Promise<{ userId: string; meals: number }[]> {
    // Every present mark is billed, whoever dines now: a member who stops dining keeps the meals they ate (nobody
    // marks a non-diner present, so the admin and the like have none).
    return db
      .select({ userId: attendance.userId, meals: count() })
      .from(attendance)
      .where(and(eq(attendance.status, 'present'), gte(attendance.date, from), lte(attendance.date, to)))
      .groupBy(attendance.userId)
      .orderBy(asc(attendance.userId));
  }

  /**
   * Per member and meal type between two dates (one month): present and absent marks and the days with a present mark
   * as bits (bit d − 1 for day d of the month). What billing's kept month figures must equal: its repair tool rebuilds
   * them from this.
   */
  async figuresByMemberAndMeal(
    from: string,
    to: string,
    db: DbOrTx = this.db,
  ): Promise<{ userId: string; mealType: string; meals: number; absent: number; presentDays: number }[]> {
    return db
      .select({
        userId: attendance.userId,
        mealType: attendance.mealType,
        meals: sql<number>`count(*) filter (where ${attendance.status} = 'present')`.mapWith(Number),
        absent: sql<number>`count(*) filter (where ${attendance.status} = 'absent')`.mapWith(Number),
        presentDays: sql<number>`coalesce(bit_or(1 << (extract(day from ${attendance.date})::int - 1)) filter (where ${attendance.status} = 'present'), 0)`.mapWith(
          Number,
        ),
      })
      .from(attendance)
      .where(and(gte(attendance.date, from), lte(attendance.date, to)))
      .groupBy(attendance.userId, attendance.mealType)
      .orderBy(asc(attendance.userId), asc(attendance.mealType));
  }

  countsByMealType(
    from: string,
    to: string,
  ): Promise<{ mealType: string; present: number; absent: number }[]> {
    return this.db
      .select({
        mealType: attendance.mealType,
        present: sql<number>`count(*) filter (where ${attendance.status} = 'present')`.mapWith(Number),
        absent: sql<number>`count(*) filter (where ${attendance.status} = 'absent')`.mapWith(Number),
      })
      .from(attendance)
      .where(and(gte(attendance.date, from), lte(attendance.date, to)))
      .groupBy(attendance.mealType)
      .orderBy(asc(attendance.mealType));
  }

  servedSlotsByMealType(from: string, to: string): Promise<{ mealType: string; slots: number }[]> {
    return this.db
      .select({
        mealType: attendance.mealType,
        slots: sql<number>`count(distinct ${attendance.date})`.mapWith(Number),
      })
      .from(attendance)
      .where(and(eq(attendance.status, 'present'), gte(attendance.date, from), lte(attendance.date, to)))
      .groupBy(attendance.mealType)
      .orderBy(asc(attendance.mealType));
  }

  /** Present and absent marks per (date, meal type) between two dates: one grouped scan. */
  slotCounts(
    from: string,
    to: string,
    db: DbOrTx = this.db,
  ): Promise<{ date: string; mealType: string; present: number; absent: number }[]> {
    return db
      .select({
        date: attendance.date,
        mealType: attendance.mealType,
        present: sql<number>`count(*) filter (where ${attendance.status} = 'present')`.mapWith(Number),
        absent: sql<number>`count(*) filter (where ${attendance.status} = 'absent')`.mapWith(Number),
      })
      .from(attendance)
      .where(and(gte(attendance.date, from), lte(attendance.date, to)))
      .groupBy(attendance.date, attendance.mealType)
      .orderBy(asc(attendance.date), asc(attendance.mealType));
  }

  /**
   * The present marks between two dates, compactly: per member and meal type, the days (counted from `from`) they
   * were marked present. One row per member and meal instead of one per mark (a year of a big mess is ~10⁶ marks).
   */
  presentDaysByMember(
    from: string,
    to: string,
  ): Promise<{ userId: string; mealType: string; days: number[] }[]> {
    return this.db
      .select({
        userId: attendance.userId,
        mealType: attendance.mealType,
        days: sql<number[]>`array_agg((${attendance.date} - ${from}::date))`,
      })
      .from(attendance)
      .where(and(gte(attendance.date, from), lte(attendance.date, to), eq(attendance.status, 'present')))
      .groupBy(attendance.userId, attendance.mealType);
  }

  /** Every mark between two dates: member, date, meal and status (the kitchen's forecast reads them). */
  marksBetween(
    from: string,
    to: string,
  ): Promise<{ userId: string; date: string; mealType: string; status: AttendanceStatus }[]> {
    return this.db
      .select({
        userId: attendance.userId,
        date: attendance.date,
        mealType: attendance.mealType,
        status: attendance.status,
      })
      .from(attendance)
      .where(and(gte(attendance.date, from), lte(attendance.date, to)));
  }

  /**
   * Present marks at each of these meal slots of any mess (read across messes): one indexed look-up per slot
   * through (mess, date, meal), whatever else the messes hold. Slots with none are absent from the answer.
   */
  async presentAtSlotsEveryMess(
    slots: readonly { messId: string; date: string; mealType: string }[],
  ): Promise<{ messId: string; date: string; mealType: string; present: number }[]> {
    if (!slots.length) return [];
    return this.database.acrossMesses(async (tx) => {
      const result = await tx.execute(sql`
        select s.mess_id as "messId", s.date::text as "date", s.meal_type as "mealType", count(*)::int as present
        from unnest(${textArray(
          slots.map((s) => s.messId),
          'uuid',
        )}, ${textArray(slots.map((s) => s.date))}::date[],
                    ${textArray(slots.map((s) => s.mealType))}) as s(mess_id, date, meal_type)
        join ${attendance} a on a.mess_id = s.mess_id and a.date = s.date and a.meal_type = s.meal_type
        where a.status = 'present'
        group by s.mess_id, s.date, s.meal_type`);
      return rowsOf<{ messId: string; date: string; mealType: string; present: number }>(result).map((r) => ({
        ...r,
        present: Number(r.present),
      }));
    });
  }

  async totals(
    from: string,
    to: string,
  ): Promise<{ present: number; absent: number; activeMembers: number }> {
    const [row] = await this.db
      .select({
        present: sql<number>`count(*) filter (where ${attendance.status} = 'present')`.mapWith(Number),
        absent: sql<number>`count(*) filter (where ${attendance.status} = 'absent')`.mapWith(Number),
        activeMembers:
          sql<number>`count(distinct ${attendance.userId}) filter (where ${attendance.status} = 'present')`.mapWith(
            Number,
          ),
      })
      .from(attendance)
      .where(and(gte(attendance.date, from), lte(attendance.date, to)));
    return row;
  }

  async markedUserIds(date: string, mealType: string): Promise<string[]> {
    const rows = await this.db
      .select({ userId: attendance.userId })
      .from(attendance)
      .where(and(eq(attendance.date, date), eq(attendance.mealType, mealType)))
      .orderBy(asc(attendance.userId));
    return rows.map((r) => r.userId);
  }

  /** The meals of `date` that each of `userIds` has a mark for, as `mealType → userIds`. */
  async markedAmong(date: string, userIds: string[]): Promise<Map<string, Set<string>>> {
    const marked = new Map<string, Set<string>>();
    if (!userIds.length) return marked;
    const rows = await this.db
      .select({ mealType: attendance.mealType, userId: attendance.userId })
      .from(attendance)
      .where(and(eq(attendance.date, date), isAnyUuid(attendance.userId, userIds)));
    for (const r of rows) {
      const set = marked.get(r.mealType) ?? new Set<string>();
      set.add(r.userId);
      marked.set(r.mealType, set);
    }
    return marked;
  }

  async presentCount(date: string, mealType: string): Promise<number> {
    const [row] = await this.db
      .select({ n: count() })
      .from(attendance)
      .where(
        and(eq(attendance.date, date), eq(attendance.mealType, mealType), eq(attendance.status, 'present')),
      );
    return row?.n ?? 0;
  }
}
