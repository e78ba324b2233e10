import { Injectable } from '@nestjs/common';
import { and, asc, count, desc, eq, getTableColumns, gt, gte, inArray, lt, lte, sql, SQL } from 'drizzle-orm';
import { Database, DbOrTx } from '../../database/database';
import { inTransaction } from '../../database/transactions';
import { uuidArray } from '../../database/sql-arrays';
import { memberNames } from '../users';
import { ACTIVE_LEAVE_STATUSES, leaves, LeaveRow, LeaveStatus, NewLeaveRow } from './leave.schema';

export interface LeaveListFilter {
  userId?: string;
  status?: LeaveStatus;
  /** Leaves with at least one day in [from, to]. */
  from?: string;
  to?: string;
  limit: number;
  offset: number;
}

export interface LeaveListRow extends LeaveRow {
  fullName: string | null;
}

/**
 * The one lock space for a member's leave: asking, deciding, and marks that must not land inside a leave. The function
 * leave_lock_shared_approved_at (migration 0015) computes the same key.
 */
const memberKey = (userId: string | SQL) => sql`hashtextextended('mess.leave:' || ${userId}, 0)`;

/** The only code that queries `leaves`. */
@Injectable()
export class LeaveRepository {
  constructor(private readonly database: Database) {}

  /** A member's rows in the statement's mess, in id order after `after`, `limit` + 1 of them (the export's pages). */
  memberPage(
    userId: string,
    after: string | undefined,
    limit: number,
    db: DbOrTx = this.database.db,
  ): Promise<LeaveRow[]> {
    return db
      .select()
      .from(leaves)
      .where(and(eq(leaves.userId, userId), after === undefined ? undefined : gt(leaves.id, after)))
      .orderBy(asc(leaves.id))
      .limit(limit + 1);
  }

  /** Erasure (extension 2.3): the member's leave reasons in the statement's mess emptied; dates and days stay. */
  async eraseReasons(tx: DbOrTx, userId: string): Promise<void> {
    await tx.update(leaves).set({ reason: '' }).where(eq(leaves.userId, userId));
  }

  private get db() {
    return this.database.db;
  }

  /** One transaction, run again whole after a deadlock or a serialisation failure (`inTransaction`). */
  transaction<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
    return inTransaction(this.db, work);
  }

  /**
   * Takes the member's leave lock until the transaction ends: exclusive for whoever asks for or decides a leave
   * (two overlapping requests take turns, so the second sees the first), shared for marks (many at once).
   */
  async lockMember(tx: DbOrTx, userId: string, mode: 'exclusive' | 'shared'): Promise<void> {
    const lock = mode === 'exclusive' ? sql`pg_advisory_xact_lock` : sql`pg_advisory_xact_lock_shared`;
    await tx.execute(sql`select ${lock}(${memberKey(userId)})`);
  }

  /** Exclusive leave locks of many members, in key order (no deadlock between two batches), in one statement. */
  async lockMembers(tx: DbOrTx, userIds: readonly string[]): Promise<void> {
    if (!userIds.length) return;
    await tx.execute(
      sql`select pg_advisory_xact_lock(k) from (select distinct ${memberKey(sql`m::text`)} as k from unnest(${uuidArray(userIds)}) as m order by 1) as keys`,
    );
  }

  /**
   * Cancels, in one statement, these members' pending and approved leaves in the statement's mess whose meals are
   * not over at `now` (ending after it); returns each as it was and as it is now.
   */
  async cancelActiveAfter(
    tx: DbOrTx,
    userIds: readonly string[],
    now: Date,
  ): Promise<{ before: LeaveRow; after: LeaveRow }[]> {
    if (!userIds.length) return [];
    const open = await tx
      .select()
      .from(leaves)
      .where(
        and(
          sql`${leaves.userId} = any(${uuidArray(userIds)})`,
          inArray(leaves.status, ACTIVE_LEAVE_STATUSES),
          gt(leaves.endsAt, now),
        ),
      )
      .orderBy(asc(leaves.id));
    if (!open.length) return [];
    const rows = await tx
      .update(leaves)
      .set({ status: 'cancelled', updatedAt: new Date() })
      .where(sql`${leaves.id} = any(${uuidArray(open.map((l) => l.id))})`)
      .returning();
    const after = new Map(rows.map((r) => [r.id, r]));
    return open.map((before) => ({ before, after: after.get(before.id)! }));
  }

  /**
   * A query of one column, `user_id`: takes the shared leave locks of many members (in one order: no deadlock
   * between two batches; held until the transaction of the statement that runs it ends), then answers those of them
   * whose approved leave covers `instant`. The function (migration 0015) reads after the locks are held, with a
   * snapshot of its own, so an approval that committed while the locks were awaited is seen.
   */
  lockedApprovedAt(userIds: string[], instant: Date): SQL {
    return sql`select approved.user_id from leave_lock_shared_approved_at(${uuidArray(userIds)},
      ${instant.toISOString()}::timestamptz) as approved(user_id)`;
  }

  async insert(values: NewLeaveRow, db: DbOrTx = this.db): Promise<LeaveRow> {
    const [row] = await db.insert(leaves).values(values).returning();
    return row;
  }

  async findById(id: string, db: DbOrTx = this.db): Promise<LeaveRow | undefined> {
    const [row] = await db.select().from(leaves).where(eq(leaves.id, id)).limit(1);
    return row;
  }

  async update(id: string, values: Partial<NewLeaveRow>, db: DbOrTx): Promise<LeaveRow> {
    const [row] = await db
      .update(leaves)
      .set({ ...values, updatedAt: new Date() })
      .where(eq(leaves.id, id))
      .returning();
    return row;
  }

  /** The member's pending and approved leaves that share an instant with [startsAt, endsAt). */
  activeOverlapping(userId: string, startsAt: Date, endsAt: Date, db: DbOrTx): Promise<LeaveRow[]> {
    return this.active(userId, [lt(leaves.startsAt, endsAt), gt(leaves.endsAt, startsAt)], db);
  }

  /** The member's pending and approved leaves with a day in [from, to] (the monthly cap counts their days). */
  activeBetweenDates(userId: string, from: string, to: string, db: DbOrTx): Promise<LeaveRow[]> {
    return this.active(userId, [lte(leaves.startDate, to), gte(leaves.endDate, from)], db);
  }

  private active(userId: string, within: SQL[], db: DbOrTx): Promise<LeaveRow[]> {
    return db
      .select()
      .from(leaves)
      .where(and(eq(leaves.userId, userId), inArray(leaves.status, ACTIVE_LEAVE_STATUSES), ...within));
  }

  /**
   * For each instant, the members whose approved leave covers it, from one read of the approved leaves that cover
   * any of them (the headcount asks for every meal of a day at once): `result[i]` answers `instants[i]`.
   */
  async approvedAtEach(instants: readonly Date[]): Promise<string[][]> {
    if (!instants.length) return [];
    const times = instants.map((i) => i.getTime());
    const rows = await this.db
      .select({ userId: leaves.userId, startsAt: leaves.startsAt, endsAt: leaves.endsAt })
      .from(leaves)
      .where(
        and(
          eq(leaves.status, 'approved'),
          lte(leaves.startsAt, new Date(Math.max(...times))),
          gt(leaves.endsAt, new Date(Math.min(...times))),
        ),
      );
    return times.map((t) => [
      ...new Set(
        rows.filter((r) => r.startsAt.getTime() <= t && r.endsAt.getTime() > t).map((r) => r.userId),
      ),
    ]);
  }

  /** The approved leaves with a day in [from, to], of every member (the daily rate's rebates), by member and start. */
  approvedBetweenDates(from: string, to: string, db: DbOrTx = this.db): Promise<LeaveRow[]> {
    return db
      .select()
      .from(leaves)
      .where(and(eq(leaves.status, 'approved'), lte(leaves.startDate, to), gte(leaves.endDate, from)))
      .orderBy(asc(leaves.userId), asc(leaves.startDate), asc(leaves.createdAt));
  }

  /** The approved leaves that cover some instant in [from, to). */
  approvedOverlapping(from: Date, to: Date): Promise<{ userId: string; startsAt: Date; endsAt: Date }[]> {
    return this.db
      .select({ userId: leaves.userId, startsAt: leaves.startsAt, endsAt: leaves.endsAt })
      .from(leaves)
      .where(and(eq(leaves.status, 'approved'), lt(leaves.startsAt, to), gt(leaves.endsAt, from)));
  }

  /** One page, newest first, with the members' names; and the total. */
  async list(filter: LeaveListFilter): Promise<{ rows: LeaveListRow[]; total: number }> {
    const conditions: SQL[] = [];
    if (filter.userId) conditions.push(eq(leaves.userId, filter.userId));
    if (filter.status) conditions.push(eq(leaves.status, filter.status));
    if (filter.to) conditions.push(lte(leaves.startDate, filter.to));
    if (filter.from) conditions.push(gte(leaves.endDate, filter.from));
    const where = conditions.length ? and(...conditions) : undefined;
    const [rows, [{ total }]] = await Promise.all([
      this.db
        .select({ ...getTableColumns(leaves), fullName: memberNames.fullName })
        .from(leaves)
        .leftJoin(memberNames, eq(memberNames.memberId, leaves.userId))
        .where(where)
        .orderBy(desc(leaves.createdAt), asc(leaves.id))
        .limit(filter.limit)
        .offset(filter.offset),
      this.db.select({ total: count() }).from(leaves).where(where),
    ]);
    return { rows, total };
  }

  async fullNameOf(userId: string): Promise<string | null> {
    const [row] = await this.db
      .select({ fullName: memberNames.fullName })
      .from(memberNames)
      .where(eq(memberNames.memberId, userId));
    return row?.fullName ?? null;
  }
}
