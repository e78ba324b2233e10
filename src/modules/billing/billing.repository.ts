import { Injectable } from '@nestjs/common';
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { union } from 'drizzle-orm/pg-core';
import { Database, DbOrTx } from '../../database/database';
import { monthClosures, monthCloseLog, monthMemberMeals, monthTotals } from './billing.schema';
import type { MemberMeals } from './cost-shares';
import { memberNames } from '../users';
import { intArray, textArray, uuidArray } from '../../database/sql-arrays';
import { rowsOf } from '../../database/sql-rows';

export interface MonthSnapshot {
  totalPaise: number;
  members: (MemberMeals & { fullName: string })[];
}

export interface MealTypeFigures {
  mealType: string;
  present: number;
  absent: number;
  servedSlots: number;
}

/** One member's marks of one meal type in a month, as kept (or rebuilt from the marks by the repair tool). */
export interface MemberMealFigures {
  userId: string;
  mealType: string;
  /** Present marks. */
  meals: number;
  absent: number;
  /** The days with a present mark, as bits: bit d − 1 for day d. */
  presentDays: number;
}

/** What the month's figures are: its spending and every member's marks per meal type. */
export interface MonthFigures {
  totalPaise: number;
  rows: MemberMealFigures[];
}

export interface ClosureRow {
  month: string;
  closedAt: Date;
  closedBy: string | null;
  bill: unknown;
}

/**
 * A mess's month as the university's view sees it: the bill's total and its active members' meals (the frozen bill
 * of a closed month, else the stored inputs), and the month's marks and slots served.
 */
export interface MessMonthFigures {
  totalPaise: number;
  activeMembers: number;
  totalMeals: number;
  /** Σ meals² over the active members: with totalMeals and activeMembers, the fair-share index. */
  mealSquares: number;
  presentMarks: number;
  servedSlots: number;
}

export interface MonthStateRow {
  month: string;
  /** Null while the month is open. */
  closedAt: Date | null;
  closedBy: string | null;
}

export interface CloseLogRow {
  action: 'close' | 'reopen';
  at: Date;
  actorId: string | null;
}

/** Advisory-lock namespace of "work on one month" (the second key is the month as YYYYMM). */
const MONTH_LOCK_NAMESPACE = 7_061_994;

/** The only code that queries the billing tables (the month's inputs, meal figures, closures and their log). */
@Injectable()
export class BillingRepository {
  constructor(private readonly database: Database) {}

  /**
   * Runs `work` in one transaction that holds the month's lock: the close, the reopen and the repair of one month run
   * one after the other, on every replica (a transaction-scoped advisory lock; PGlite has them too). With `pauseWrites`
   * it also takes SHARE locks on expenses, attendance and extras (waiting for writes in flight and holding off new ones until
   * commit), so what `work` reads is every committed write and nothing can slip in before it commits. `work` must do
   * every read and write through `tx`: a query on another connection could wait for a writer that waits for us (and
   * on PGlite, whose transactions are exclusive, it would wait for ever).
   */
  monthTransaction<T>(month: string, options: { pauseWrites: boolean }, work: (tx: DbOrTx) => Promise<T>) {
    return this.database.db.transaction(async (tx) => {
      // With the lock, JIT off for this transaction: a month's aggregates over ~40,000 marks cross jit_above_cost,
      // and compiling them cost more (~30 ms) than running them.
      await tx.execute(
        sql`select pg_advisory_xact_lock(${MONTH_LOCK_NAMESPACE}::int, ${monthKey(month)}::int), set_config('jit', 'off', true)`,
      );
      if (options.pauseWrites) await tx.execute(sql`lock table expenses, attendance, extras in share mode`);
      return work(tx);
    });
  }

  /**
   * Repair: replaces the month's kept figures with `figures` (rebuilt from the records) inside `tx`, a
   * `monthTransaction` that paused writes. The triggers of migration 0035 keep them on every write; nothing else
   * writes them.
   */
  async replaceFigures(tx: DbOrTx, month: string, figures: MonthFigures): Promise<void> {
    const { totalPaise, rows } = figures;
    await tx.delete(monthMemberMeals).where(eq(monthMemberMeals.month, month));
    await tx.delete(monthTotals).where(eq(monthTotals.month, month));
    if (rows.length) {
      // One statement for every row, however many: arrays unnested server-side.
      await tx.execute(sql`insert into ${monthMemberMeals} (month, user_id, meal_type, meals, absent, present_days)
        select ${month}, unnest(${uuidArray(rows.map((r) => r.userId))}), unnest(${textArray(rows.map((r) => r.mealType))}),
          unnest(${intArray(rows.map((r) => r.meals))}), unnest(${intArray(rows.map((r) => r.absent))}),
          unnest(${intArray(rows.map((r) => r.presentDays))})`);
    }
    await tx.insert(monthTotals).values({ month, totalPaise });
  }

  /** The month's kept figures as stored, rows with no mark left out, in key order (the repair tool compares them). */
  async keptFigures(month: string, db: DbOrTx = this.database.db): Promise<MonthFigures> {
    const [total] = await db
      .select({ totalPaise: monthTotals.totalPaise })
      .from(monthTotals)
      .where(eq(monthTotals.month, month));
    const rows = await db
      .select({
        userId: monthMemberMeals.userId,
        mealType: monthMemberMeals.mealType,
        meals: monthMemberMeals.meals,
        absent: monthMemberMeals.absent,
        presentDays: monthMemberMeals.presentDays,
      })
      .from(monthMemberMeals)
      .where(and(eq(monthMemberMeals.month, month), sql`${monthMemberMeals.meals} + ${monthMemberMeals.absent} <> 0`))
      .orderBy(asc(monthMemberMeals.userId), asc(monthMemberMeals.mealType));
    return { totalPaise: total?.totalPaise ?? 0, rows };
  }

  /**
   * The month's figures per meal type (marks present and absent, slots served), in one statement; meal types with no
   * mark are absent. `db`: the close's transaction, or outside one.
   */
  async mealFigures(month: string, db: DbOrTx = this.database.db): Promise<MealTypeFigures[]> {
    const rows = rowsOf<{ mealType: string; present: string; absent: string; days: number }>(
      await db.execute(sql`
        select meal_type as "mealType", sum(meals)::text as present, sum(absent)::text as absent,
               bit_or(present_days) as days
        from ${monthMemberMeals} where month = ${month}
        group by meal_type having sum(meals) + sum(absent) <> 0 order by meal_type`),
    );
    return rows.map((r) => ({
      mealType: r.mealType,
      present: Number(r.present),
      absent: Number(r.absent),
      servedSlots: bitCount(Number(r.days)),
    }));
  }

  /**
   * The bill's inputs of the month (its spending and each member's meals, members with none left out) with each
   * member's name, in one statement (one snapshot). `db`: the close's transaction, or outside one.
   */
  async readMonth(month: string, db: DbOrTx = this.database.db): Promise<MonthSnapshot> {
    const rows = rowsOf<{ totalPaise: string | null; userId: string | null; meals: number | null; fullName: string | null }>(
      await db.execute(sql`
        with meals as (
          select user_id, sum(meals)::int as meals from ${monthMemberMeals}
          where month = ${month} group by user_id having sum(meals) > 0
        )
        select (select total_paise from ${monthTotals} where month = ${month})::text as "totalPaise",
               m.user_id as "userId", m.meals, member_names.full_name as "fullName"
        from (select 1) one
          left join meals m on true
          left join ${memberNames} on member_names.id = m.user_id
        order by m.user_id`),
    );
    return {
      totalPaise: Number(rows[0]?.totalPaise ?? 0),
      members: rows.flatMap((r) =>
        r.userId === null ? [] : [{ userId: r.userId, meals: r.meals!, fullName: r.fullName ?? '' }],
      ),
    };
  }

  /**
   * Every mess's figures of the month, in one read across messes, by mess id; a mess with no expense and no mark in
   * the month is absent. A closed month's bill figures come from its frozen bill (as `bill` answers them), an open
   * month's from the kept figures; marks and slots from the kept figures either way.
   */
  async monthFiguresPerMess(month: string): Promise<Map<string, MessMonthFigures>> {
    const result = await this.database.acrossMesses((tx) =>
      tx.execute(sql`
        with frozen as (
          select mess_id, bill -> 'bills' -> 'proportional' as b from month_closures where month = ${month}
        ),
        frozen_meals as (
          select f.mess_id, count(*) as active, sum(m.meals) as meals, sum(m.meals * m.meals) as squares
          from frozen f cross join lateral jsonb_array_elements(f.b -> 'shares') s
            cross join lateral (select (s ->> 'meals')::bigint as meals) m
          where m.meals > 0 group by f.mess_id
        ),
        members as (
          select mess_id, sum(meals)::bigint as meals from month_member_meals where month = ${month}
          group by mess_id, user_id having sum(meals) > 0
        ),
        live_meals as (
          select mess_id, count(*) as active, sum(meals) as meals, sum(meals * meals) as squares
          from members group by mess_id
        ),
        meal_types as (
          select mess_id, sum(meals) as present, sum(absent) as absent, bit_or(present_days) as days
          from month_member_meals where month = ${month} group by mess_id, meal_type
        ),
        counts as (
          select mess_id, sum(present) as present, array_agg(days) as days
          from meal_types where present + absent <> 0 group by mess_id
        ),
        spent as (select mess_id, total_paise from month_totals where month = ${month}),
        known as (select mess_id from spent union select mess_id from counts)
        select k.mess_id as "messId",
               coalesce((f.b ->> 'totalPaise')::bigint, t.total_paise, 0)::text as "totalPaise",
               coalesce(case when f.mess_id is null then l.active else fm.active end, 0)::text as "activeMembers",
               coalesce(case when f.mess_id is null then l.meals else fm.meals end, 0)::text as "totalMeals",
               coalesce(case when f.mess_id is null then l.squares else fm.squares end, 0)::text as "mealSquares",
               coalesce(c.present, 0)::text as "presentMarks",
               coalesce(c.days, '{}') as "servedDays"
        from known k
          left join spent t on t.mess_id = k.mess_id
          left join frozen f on f.mess_id = k.mess_id
          left join frozen_meals fm on fm.mess_id = k.mess_id
          left join live_meals l on l.mess_id = k.mess_id
          left join counts c on c.mess_id = k.mess_id`),
    );
    type Row = { messId: string; servedDays: number[] } & Record<Exclude<keyof MessMonthFigures, 'servedSlots'>, string>;
    return new Map(
      rowsOf<Row>(result).map((r) => [
        r.messId,
        {
          totalPaise: Number(r.totalPaise),
          activeMembers: Number(r.activeMembers),
          totalMeals: Number(r.totalMeals),
          mealSquares: Number(r.mealSquares),
          presentMarks: Number(r.presentMarks),
          servedSlots: r.servedDays.reduce((sum, days) => sum + bitCount(Number(days)), 0),
        },
      ]),
    );
  }

  /**
   * Erasure (extension 2.3), in its transaction, in the mess it acts in: the member's name in every frozen bill
   * (`bill.names`, the names as they were at the close) becomes their pseudonym; no figure changes.
   */
  async renameInClosures(tx: DbOrTx, userId: string, pseudonym: string): Promise<void> {
    await tx
      .update(monthClosures)
      .set({
        bill: sql`jsonb_set(${monthClosures.bill}, array['names', ${userId}::text], to_jsonb(${pseudonym}::text))`,
      })
      .where(sql`jsonb_exists(${monthClosures.bill} -> 'names', ${userId}::text)`);
  }

  async findClosure(month: string, db: DbOrTx = this.database.db): Promise<ClosureRow | undefined> {
    const [row] = await db.select().from(monthClosures).where(eq(monthClosures.month, month));
    return row;
  }

  async insertClosure(tx: DbOrTx, month: string, actorId: string, bill: unknown): Promise<ClosureRow> {
    const [row] = await tx.insert(monthClosures).values({ month, closedBy: actorId, bill }).returning();
    await tx.insert(monthCloseLog).values({ month, action: 'close', actorId });
    return row;
  }

  /** Removes the closure and records the reopening inside `tx`; false when the month was not closed. */
  async deleteClosure(tx: DbOrTx, month: string, actorId: string): Promise<boolean> {
    const removed = await tx.delete(monthClosures).where(eq(monthClosures.month, month)).returning();
    if (!removed.length) return false;
    await tx.insert(monthCloseLog).values({ month, action: 'reopen', actorId });
    return true;
  }

  /**
   * The months with something to bill (an expense or an attendance mark in the kept figures), or closed or reopened
   * at least once, newest first, with their closure if closed: one page, and how many there are. A month emptied by
   * deletions is not listed.
   */
  async listMonths(page: number, limit: number): Promise<{ rows: MonthStateRow[]; total: number }> {
    const db = this.database.db;
    const known = union(
      db.select({ month: monthTotals.month }).from(monthTotals).where(sql`${monthTotals.totalPaise} <> 0`),
      db
        .select({ month: monthMemberMeals.month })
        .from(monthMemberMeals)
        .where(sql`${monthMemberMeals.meals} + ${monthMemberMeals.absent} <> 0`),
      db.select({ month: monthClosures.month }).from(monthClosures),
      db.select({ month: monthCloseLog.month }).from(monthCloseLog),
    ).as('known');
    const [rows, [{ total }]] = [
      await db
        .select({ month: known.month, closedAt: monthClosures.closedAt, closedBy: monthClosures.closedBy })
        .from(known)
        .leftJoin(monthClosures, eq(monthClosures.month, known.month))
        .orderBy(desc(known.month))
        .limit(limit)
        .offset((page - 1) * limit),
      await db.select({ total: sql<number>`count(*)`.mapWith(Number) }).from(known),
    ];
    return { rows, total };
  }

  /** Every close and reopen of the month, oldest first; names come from the users module. */
  async closeLog(month: string): Promise<CloseLogRow[]> {
    return this.database.db
      .select({ action: monthCloseLog.action, at: monthCloseLog.at, actorId: monthCloseLog.actorId })
      .from(monthCloseLog)
      .where(eq(monthCloseLog.month, month))
      .orderBy(asc(monthCloseLog.at), asc(monthCloseLog.id));
  }

  async closedMonths(): Promise<string[]> {
    const rows = await this.database.db
      .select({ month: monthClosures.month })
      .from(monthClosures)
      .orderBy(desc(monthClosures.month));
    return rows.map((r) => r.month);
  }
}

/** The days set in a month's bits of present days (at most 31). */
export function bitCount(bits: number): number {
  let count = 0;
  for (let rest = bits >>> 0; rest; rest &= rest - 1) count += 1;
  return count;
}

/** `2025-03` → 202503: a distinct advisory-lock key per month. */
function monthKey(month: string): number {
  return Number(month.replace('-', ''));
}
