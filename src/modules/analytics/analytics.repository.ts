import { Injectable } from '@nestjs/common';
import { asc, desc, eq, sql } from 'drizzle-orm';
import { Database, DbOrTx } from '../../database/database';
import { users } from '../users/users.schema';
import {
  monthClosures,
  monthCloseLog,
  monthMealCounts,
  monthMemberMeals,
  monthTotals,
} from './analytics.schema';
import type { MemberMeals } from './cost-shares';

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

export interface ClosureRow {
  month: string;
  closedAt: Date;
  closedBy: string | null;
  bill: unknown;
}

/** The only code that queries the analytics tables. */
@Injectable()
export class AnalyticsRepository {
  constructor(private readonly database: Database) {}

  /** Replaces a month's inputs in one transaction: readers see the old month or the new, never a mix. */
  async replaceMonth(
    month: string,
    totalPaise: number,
    members: MemberMeals[],
    mealTypes: MealTypeFigures[],
  ): Promise<void> {
    await this.database.db.transaction(async (tx) => {
      await tx.delete(monthMemberMeals).where(eq(monthMemberMeals.month, month));
      await tx.delete(monthMealCounts).where(eq(monthMealCounts.month, month));
      if (members.length) {
        // One statement for every member, however many: arrays unnested server-side.
        await tx.execute(sql`insert into ${monthMemberMeals} (month, user_id, meals)
          select ${month}, unnest(${toPgArray(members.map((m) => m.userId))}::uuid[]), unnest(${toPgArray(members.map((m) => m.meals))}::int[])`);
      }
      if (mealTypes.length) {
        await tx.insert(monthMealCounts).values(mealTypes.map((m) => ({ month, ...m })));
      }
      await tx
        .insert(monthTotals)
        .values({ month, totalPaise, computedAt: new Date() })
        .onConflictDoUpdate({ target: monthTotals.month, set: { totalPaise, computedAt: new Date() } });
    });
  }

  async readMealCounts(month: string): Promise<MealTypeFigures[] | undefined> {
    const [total] = await this.database.db
      .select({ month: monthTotals.month })
      .from(monthTotals)
      .where(eq(monthTotals.month, month));
    if (!total) return undefined;
    return this.database.db
      .select({
        mealType: monthMealCounts.mealType,
        present: monthMealCounts.present,
        absent: monthMealCounts.absent,
        servedSlots: monthMealCounts.servedSlots,
      })
      .from(monthMealCounts)
      .where(eq(monthMealCounts.month, month));
  }

  /** The month's inputs with each member's name, in two indexed reads; undefined if never computed. */
  async readMonth(month: string): Promise<MonthSnapshot | undefined> {
    const [[total], members] = await Promise.all([
      this.database.db.select().from(monthTotals).where(eq(monthTotals.month, month)),
      this.database.db
        .select({ userId: monthMemberMeals.userId, meals: monthMemberMeals.meals, fullName: users.fullName })
        .from(monthMemberMeals)
        .innerJoin(users, eq(users.id, monthMemberMeals.userId))
        .where(eq(monthMemberMeals.month, month)),
    ]);
    if (!total) return undefined;
    return { totalPaise: total.totalPaise, computedAt: total.computedAt, members };
  }

  async findClosure(month: string): Promise<ClosureRow | undefined> {
    const [row] = await this.database.db.select().from(monthClosures).where(eq(monthClosures.month, month));
    return row;
  }

  /**
   * Runs `work` while no expense or attendance write can commit: on a server it takes SHARE locks on those tables
   * (waiting for writes in flight), so the bill computed inside sees every committed write and none can slip in
   * before the closure row exists. The embedded engine has one connection, so nothing runs concurrently there.
   */
  async withWritesPaused<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
    if (this.database.kind === 'embedded') return work(this.database.db);
    return this.database.db.transaction(async (tx) => {
      await tx.execute(sql`lock table expenses, attendance in share mode`);
      return work(tx);
    });
  }

  async insertClosure(tx: DbOrTx, month: string, actorId: string, bill: unknown): Promise<ClosureRow> {
    const [row] = await tx.insert(monthClosures).values({ month, closedBy: actorId, bill }).returning();
    await tx.insert(monthCloseLog).values({ month, action: 'close', actorId });
    return row;
  }

  /** Removes the closure and records the reopening; false when the month was not closed. */
  async deleteClosure(month: string, actorId: string): Promise<boolean> {
    return this.database.db.transaction(async (tx) => {
      const removed = await tx.delete(monthClosures).where(eq(monthClosures.month, month)).returning();
      if (!removed.length) return false;
      await tx.insert(monthCloseLog).values({ month, action: 'reopen', actorId });
      return true;
    });
  }

  async closeLog(month: string) {
    return this.database.db
      .select({
        action: monthCloseLog.action,
        at: monthCloseLog.at,
        actorId: monthCloseLog.actorId,
        actorName: users.fullName,
      })
      .from(monthCloseLog)
      .leftJoin(users, eq(users.id, monthCloseLog.actorId))
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

/** A Postgres array literal; both drivers pass it as text, cast in the statement. */
function toPgArray(values: (string | number)[]): string {
  return `{${values.join(',')}}`;
}
