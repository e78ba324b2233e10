import { Injectable } from '@nestjs/common';
import { and, asc, count, desc, eq, getTableColumns, gt, gte, lte, sql, SQL } from 'drizzle-orm';
import { Database, DbOrTx } from '../../database/database';
import { inTransaction } from '../../database/transactions';
import { memberNames } from '../users';
import { attendance, AttendanceRow, AttendanceStatus, MarkSource } from './attendance.schema';
import { isAnyUuid, textArray } from '../../database/sql-arrays';
import { fromDriverRow, rowsOf } from '../../database/sql-rows';

export interface AttendanceListFilter {
  userId?: string;
  date?: string;
  /** Inclusive calendar-date range. */
  from?: string;
  to?: string;
  status?: AttendanceStatus;
  limit: number;
  offset: number;
}

export interface AttendanceListRow extends AttendanceRow {
  fullName: string | null;
}

export interface SlotMark {
  userId: string;
  date: string;
  mealType: string;
  status: AttendanceStatus;
  source: MarkSource;
  markedBy: string;
  markedAt: Date;
}

/**
 * A row the upsert wrote: `created` true for a new mark, false for a changed one (its status, or only its source: the
 * mess re-stating a member's own mark makes it the kitchen's record).
 */
export type WrittenMark = AttendanceRow & {
  created: boolean;
  /** Written after its meal ended (SlotWriter: audited, and its discrepancy written to the outbox, with it). */
  afterMeal?: boolean;
};

/**
 * Which stored marks an upsert may overwrite. `member`: a member's own mark changes only marks the member made (a
 * mess or counter mark stays). `mess`: a manager, an admin or the counter changes any mark, and takes over a member's
 * own mark of the same status (it becomes the kitchen's record), but re-stating its own kind of record writes nothing.
 */
export type MarkWriter = 'member' | 'mess';

/** The code that reads and writes `attendance` rows; the aggregates other modules read are AttendanceAggregates'. */
@Injectable()
export class AttendanceRepository {
  constructor(private readonly database: Database) {}

  /** A member's rows in the statement's mess, in id order after `after`, `limit` + 1 of them (the export's pages). */
  memberPage(
    userId: string,
    after: string | undefined,
    limit: number,
    db: DbOrTx = this.database.db,
  ): Promise<AttendanceRow[]> {
    return db
      .select()
      .from(attendance)
      .where(and(eq(attendance.userId, userId), after === undefined ? undefined : gt(attendance.id, after)))
      .orderBy(asc(attendance.id))
      .limit(limit + 1);
  }

  private get db() {
    return this.database.db;
  }

  /**
   * `work` in a transaction (`inTransaction`: retried on a deadlock, and the durable events written in it wake the
   * outbox relay at its commit).
   */
  transaction<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
    return inTransaction(this.db, work);
  }

  async findById(id: string): Promise<AttendanceRow | undefined> {
    const [row] = await this.db.select().from(attendance).where(eq(attendance.id, id)).limit(1);
    return row;
  }

  async findSlot(userId: string, date: string, mealType: string): Promise<AttendanceRow | undefined> {
    const [row] = await this.db
      .select()
      .from(attendance)
      .where(and(eq(attendance.userId, userId), eq(attendance.date, date), eq(attendance.mealType, mealType)))
      .limit(1);
    return row;
  }

  /** One page joined with the members' names, and the total: two queries whatever the page size. */
  async list(filter: AttendanceListFilter): Promise<{ rows: AttendanceListRow[]; total: number }> {
    const conditions: SQL[] = [];
    if (filter.userId) conditions.push(eq(attendance.userId, filter.userId));
    if (filter.date) conditions.push(eq(attendance.date, filter.date));
    if (filter.from) conditions.push(gte(attendance.date, filter.from));
    if (filter.to) conditions.push(lte(attendance.date, filter.to));
    if (filter.status) conditions.push(eq(attendance.status, filter.status));
    const where = conditions.length ? and(...conditions) : undefined;
    const [rows, [{ total }]] = await Promise.all([
      this.db
        .select({ ...getTableColumns(attendance), fullName: memberNames.fullName })
        .from(attendance)
        .leftJoin(memberNames, eq(memberNames.memberId, attendance.userId))
        .where(where)
        .orderBy(
          desc(attendance.date),
          asc(attendance.mealType),
          asc(memberNames.fullName),
          asc(attendance.id),
        )
        .limit(filter.limit)
        .offset(filter.offset),
      this.db.select({ total: count() }).from(attendance).where(where),
    ]);
    return { rows, total };
  }

  /**
   * Creates or changes the marks of one slot in ONE statement, atomically and safe under concurrent retries: a
   * conflicting (member, date, meal) row is updated only when its status differs. Returns the rows written: created
   * ones with `created: true`, changed ones with `created: false`. A mark that re-states the stored status is not
   * written and not returned. The marks must name distinct slots.
   *
   * `onLeave`: a query of the members on leave for the meal that holds their leave locks (LeaveCalendar.onLeaveLocked:
   * shared, until the statement's transaction ends, its own or `db`'s). The same statement runs it first and writes
   * nothing when it answers any member; those are returned in `onLeave`. One round trip where a transaction of
   * `begin`, the lock, the upsert and `commit` took four (the counter's dinner rush is a scan of one mark each).
   */
  async upsertMarks(
    marks: SlotMark[],
    db: DbOrTx = this.db,
    writer: MarkWriter = 'mess',
    onLeave?: SQL,
  ): Promise<{ written: WrittenMark[]; onLeave: string[] }> {
    if (!marks.length) return { written: [], onLeave: [] };
    const changes = sql`attendance.status is distinct from excluded.status`;
    const setWhere =
      writer === 'member'
        ? sql`${changes} and attendance.source = 'member'`
        : sql`${changes} or (attendance.source = 'member' and excluded.source <> 'member')`;
    // In one order (the members'), so two batches of one slot lock its rows in turn rather than deadlock.
    // (PostgreSQL's uuid order is the order of the lower-case text; ids may arrive in upper case.)
    const key = (mark: SlotMark) => mark.userId.toLowerCase();
    const ordered = [...marks].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    const column = <T extends string | null>(of: (mark: SlotMark) => T) => ordered.map(of);
    const result = await db.execute(sql`
      with on_leave as materialized (${onLeave ?? sql`select null::uuid as user_id where false`}), written as (
        insert into attendance (user_id, date, meal_type, status, source, marked_by, marked_at, updated_at)
        select m.user_id, m.date, m.meal_type, m.status, m.source, m.marked_by, m.marked_at, m.marked_at
        from unnest(${textArray(column(key), 'uuid')}, ${textArray(column((m) => m.date))}::date[],
                    ${textArray(column((m) => m.mealType))}, ${textArray(column((m) => m.status))},
                    ${textArray(column((m) => m.source))}, ${textArray(column((m) => m.markedBy), 'uuid')},
                    ${textArray(column((m) => m.markedAt.toISOString()))}::timestamptz[])
             with ordinality as m(user_id, date, meal_type, status, source, marked_by, marked_at, n)
        where not exists (select 1 from on_leave)
        order by m.n
        on conflict (mess_id, user_id, date, meal_type) do update set
          -- The stored row's status, as locked by this statement: what the mark was before (exact under concurrent
          -- writers, unlike a read before the write).
          previous_status = attendance.status, status = excluded.status, source = excluded.source,
          marked_by = excluded.marked_by, marked_at = excluded.marked_at, updated_at = excluded.updated_at
        where ${setWhere}
        -- xmax is 0 only on a tuple this statement inserted; an updated one carries our row lock.
        returning attendance.*, (xmax = 0) as created
      )
      select on_leave.user_id as on_leave, written.* from on_leave full join written on false`);
    const written: WrittenMark[] = [];
    const refused: string[] = [];
    for (const raw of rowsOf<Record<string, unknown>>(result)) {
      if (raw.on_leave !== null && raw.on_leave !== undefined) refused.push(String(raw.on_leave));
      else written.push({ ...fromDriverRow(attendance, raw), created: Boolean(raw.created) });
    }
    return { written, onLeave: refused };
  }

  async findSlots(
    date: string,
    mealType: string,
    userIds: string[],
    db: DbOrTx = this.db,
  ): Promise<AttendanceRow[]> {
    if (!userIds.length) return [];
    return db
      .select()
      .from(attendance)
      .where(
        and(
          eq(attendance.date, date),
          eq(attendance.mealType, mealType),
          isAnyUuid(attendance.userId, userIds),
        ),
      )
      .orderBy(asc(attendance.userId));
  }

  /** A member's marks between two dates, locked until `tx` ends (a leave approval reads and changes them). */
  memberMarksForUpdate(userId: string, from: string, to: string, tx: DbOrTx): Promise<AttendanceRow[]> {
    return tx
      .select()
      .from(attendance)
      .where(and(eq(attendance.userId, userId), gte(attendance.date, from), lte(attendance.date, to)))
      .orderBy(asc(attendance.date), asc(attendance.mealType))
      .for('update');
  }

  /** Sets these marks absent (a leave approval), keeping who made them. */
  setAbsent(ids: string[], markedBy: string, markedAt: Date, tx: DbOrTx): Promise<AttendanceRow[]> {
    if (!ids.length) return Promise.resolve([]);
    return tx
      .update(attendance)
      .set({ status: 'absent', previousStatus: 'present', markedBy, markedAt, updatedAt: markedAt })
      .where(and(isAnyUuid(attendance.id, ids), eq(attendance.status, 'present')))
      .returning();
  }
}
