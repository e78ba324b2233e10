import { Injectable } from '@nestjs/common';
import { asc, desc, eq, sql } from 'drizzle-orm';
import { union } from 'drizzle-orm/pg-core';
import { Database, DbOrTx } from '../../database/database';
import {
  monthClosures,
  monthCloseLog,
  monthMealCounts,
  monthMemberMeals,
  monthTotals,
} from './billing.schema';
import type { MemberMeals } from './cost-shares';
import { memberNames } from '../users';
import { intArray, uuidArray } from '../../database/sql-arrays';
import { rowsOf } from '../../database/sql-rows';

export interface MonthSnapshot {
  totalPaise: number;
  computedAt: Date;
  members: (MemberMeals & { fullName: string })[];
}

export interface MealTypeFigures {
  mealType: string;
  present: number;
  absent: number;
  servedSlots: number;
}

/** What the bill and the meal figures of a month are computed from. */
export interface MonthInputs {
  totalPaise: number;
  members: MemberMeals[];
  mealTypes: MealTypeFigures[];
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
   * Runs `work` in one transaction that holds the month's lock: recalculations and the close of one month run one
   * after the other, on every replica (a transaction-scoped advisory lock; PGlite has them too). With `pauseWrites`
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

  /** Replaces a month's inputs inside `tx` (a `monthTransaction`): readers see the old month or the new, never a mix. */
  async replaceMonth(tx: DbOrTx, month: string, inputs: MonthInputs): Promise<void> {
    const { totalPaise, members, mealTypes } = inputs;
    await tx.delete(monthMemberMeals).where(eq(monthMemberMeals.month, month));
    await tx.delete(monthMealCounts).where(eq(monthMealCounts.month, month));
    if (members.length) {
      // One statement for every member, however many: arrays unnested server-side.
      await tx.execute(sql`insert into ${monthMemberMeals} (month, user_id, meals)
        select ${month}, unnest(${uuidArray(members.map((m) => m.userId))}), unnest(${intArray(members.map((m) => m.meals))})`);
    }
    if (mealTypes.length) {
      await tx.insert(monthMealCounts).values(mealTypes.map((m) => ({ month, ...m })));
    }
    await tx
      .insert(monthTotals)
      .values({ month, totalPaise, computedAt: new Date() })
      .onConflictDoUpdate({
        target: [monthTotals.messId, monthTotals.month],
        set: { totalPaise, computedAt: new Date() },
      });
  }

  /** The month's figures per meal type, in one statement (one snapshot); undefined if never computed. */
  async readMealCounts(month: string): Promise<MealTypeFigures[] | undefined> {
    const rows = await this.database.db
      .select({
        mealType: monthMealCounts.mealType,
        present: monthMealCounts.present,
        absent: monthMealCounts.absent,
        servedSlots: monthMealCounts.servedSlots,
      })
      .from(monthTotals)
      .leftJoin(monthMealCounts, eq(monthMealCounts.month, monthTotals.month))
      .where(eq(monthTotals.month, month))
      .orderBy(asc(monthMealCounts.mealType));
    if (!rows.length) return undefined;
    return rows.flatMap((r) =>
      r.mealType === null
        ? []
        : [{ mealType: r.mealType, present: r.present!, absent: r.absent!, servedSlots: r.servedSlots! }],
    );
  }

  /** The month's bill inputs with each member's name, in one statement (one snapshot); undefined if never computed. */
  async readMonth(month: string): Promise<MonthSnapshot | undefined> {
    const rows = await this.database.db
      .select({
        totalPaise: monthTotals.totalPaise,
        computedAt: monthTotals.computedAt,
        userId: monthMemberMeals.userId,
        meals: monthMemberMeals.meals,
        fullName: memberNames.fullName,
      })
      .from(monthTotals)
      .leftJoin(monthMemberMeals, eq(monthMemberMeals.month, monthTotals.month))
      .leftJoin(memberNames, eq(memberNames.memberId, monthMemberMeals.userId))
      .where(eq(monthTotals.month, month))
      .orderBy(asc(monthMemberMeals.userId));
    if (!rows.length) return undefined;
    return {
      totalPaise: rows[0].totalPaise,
      computedAt: rows[0].computedAt,
      members: rows.flatMap((r) =>
        r.userId === null ? [] : [{ userId: r.userId, meals: r.meals!, fullName: r.fullName ?? '' }],
      ),
    };
  }

  /**
   * Every mess's figures of the month, in one read across messes, by mess id; a mess whose month was never computed
   * is absent. A closed month's bill figures come from its frozen bill (as `bill` answers them), an open month's
   * from its stored inputs; marks and slots from the stored meal counts either way.
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
        live_meals as (
          select mess_id, count(*) as active, sum(meals::bigint) as meals, sum(meals::bigint * meals) as squares
          from month_member_meals where month = ${month} and meals > 0 group by mess_id
        ),
        counts as (
          select mess_id, sum(present) as present, sum(served_slots) as served
          from month_meal_counts where month = ${month} group by mess_id
        )
        select t.mess_id as "messId",
               coalesce((f.b ->> 'totalPaise')::bigint, t.total_paise)::text as "totalPaise",
               coalesce(case when f.mess_id is null then l.active else fm.active end, 0)::text as "activeMembers",
               coalesce(case when f.mess_id is null then l.meals else fm.meals end, 0)::text as "totalMeals",
               coalesce(case when f.mess_id is null then l.squares else fm.squares end, 0)::text as "mealSquares",
               coalesce(c.present, 0)::text as "presentMarks",
               coalesce(c.served, 0)::text as "servedSlots"
        from month_totals t
          left join frozen f on f.mess_id = t.mess_id
          left join frozen_meals fm on fm.mess_id = t.mess_id
          left join live_meals l on l.mess_id = t.mess_id
          left join counts c on c.mess_id = t.mess_id
        where t.month = ${month}`),
    );
    type Row = { messId: string } & Record<keyof MessMonthFigures, string>;
    return new Map(
      rowsOf<Row>(result).map((r) => [
        r.messId,
        {
          totalPaise: Number(r.totalPaise),
          activeMembers: Number(r.activeMembers),
          totalMeals: Number(r.totalMeals),
          mealSquares: Number(r.mealSquares),
          presentMarks: Number(r.presentMarks),
          servedSlots: Number(r.servedSlots),
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
   * The months with something to bill (stored inputs with an expense or an attendance mark), or closed or reopened at
   * least once, newest first, with their closure if closed: one page, and how many there are. A month whose inputs
   * were computed but hold nothing (read before anything was recorded, or emptied by deletions) is not listed.
   */
  async listMonths(page: number, limit: number): Promise<{ rows: MonthStateRow[]; total: number }> {
    const db = this.database.db;
    const known = union(
      db
        .select({ month: monthTotals.month })
        .from(monthTotals)
        .where(
          sql`${monthTotals.totalPaise} <> 0 or exists (select 1 from ${monthMealCounts} where ${monthMealCounts.messId} = ${monthTotals.messId} and ${monthMealCounts.month} = ${monthTotals.month})`,
        ),
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

/** `2025-03` → 202503: a distinct advisory-lock key per month. */
function monthKey(month: string): number {
  return Number(month.replace('-', ''));
}
