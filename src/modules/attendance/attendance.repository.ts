import { Injectable } from '@nestjs/common';
import { and, asc, count, desc, eq, getTableColumns, gt, gte, lte, sql, SQL } from 'drizzle-orm';
import { Database, DbOrTx } from '../../database/database';
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
export type WrittenMark = AttendanceRow & { created: boolean };

/**
 * Which stored marks an upsert may overwrite. `member`: a member's own mark changes only marks the member made (a
 * mess or counter mark stays). `mess`: a manager, an admin or the counter changes any mark, and takes over a member's
 * own mark of the same status (it becomes the kitchen's record), but re-stating its own kind of record writes nothing.
 */
export type MarkWriter = 'member' | 'mess';

/** The only code that queries `attendance`. */
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

  transaction<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
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

  // ---- aggregates for other modules (through AttendanceQueries) ----

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
