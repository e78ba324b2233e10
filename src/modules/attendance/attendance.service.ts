import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { type CurrentMember, isPrivileged } from '../../common/auth/auth.decorators';
import { badRequest, FieldError, forbidden, notFound } from '../../common/errors/api-error';
import { databaseErrorCode } from '../../common/errors/database-errors';
import { AttendanceBulkEvent, AttendanceEvent, DomainEvents } from '../../common/events/domain-events';
import { publishDomainEvent } from '../../common/events/publish';
import { Clock } from '../../common/time/clock';
import { monthBounds, monthOf } from '../../common/time/dates';
import { MessConfigService } from '../mess-config/mess-config.service';
import { UsersService } from '../users/users.service';
import { AttendanceListRow, AttendanceRepository, SlotMark, WrittenMark } from './attendance.repository';
import { AttendanceRow, AttendanceStatus } from './attendance.schema';
import { BulkAttendanceDto, ListAttendanceQuery, MarkAttendanceDto } from './dto/attendance.requests';
import './attendance.errors';

export interface MarkOutcome {
  row: AttendanceRow;
  created: boolean;
}

export interface BulkOutcome {
  /** The stored mark of every entry of the request, in the request's order. */
  rows: AttendanceRow[];
  created: number;
  updated: number;
  unchanged: number;
}

/** Raised by the month-close trigger (drizzle/0004_month_close_guard.sql) on any write into a closed month. */
const MONTH_CLOSED_SQLSTATE = 'MS409';

/** Managers and admins mark for other members; everyone marks for themself. */
const marksForOthers = (caller: CurrentMember): boolean =>
  caller.role === 'manager' || caller.role === 'admin';

// Marks are written only when their status differs and there are two statuses, so a changed mark was the other.
const otherStatus = (status: AttendanceStatus): AttendanceStatus =>
  status === 'present' ? 'absent' : 'present';

/** Attendance marks per member and meal slot; the owner of the `attendance` table. */
@Injectable()
export class AttendanceService {
  constructor(
    private readonly repository: AttendanceRepository,
    private readonly messConfig: MessConfigService,
    private readonly events: EventEmitter2,
    private readonly clock: Clock,
    private readonly users: UsersService,
  ) {}

  /** Students see only their own marks, whatever `userId` they pass; everyone else sees any member's. */
  async list(
    caller: CurrentMember,
    query: ListAttendanceQuery,
  ): Promise<{ rows: AttendanceListRow[]; total: number }> {
    const month = query.month ? monthBounds(query.month) : undefined;
    return this.repository.list({
      userId: isPrivileged(caller) ? query.userId : caller.id,
      date: query.date,
      from: month?.first,
      to: month?.last,
      status: query.status,
      limit: query.limit,
      offset: (query.page - 1) * query.limit,
    });
  }

  /**
   * Upserts the mark of one (member, date, meal): `created` when there was none. A mark that re-states the stored
   * status writes nothing (markedAt and markedBy stay) and publishes no event.
   */
  async mark(caller: CurrentMember, body: MarkAttendanceDto): Promise<MarkOutcome> {
    const userId = body.userId ?? caller.id;
    if (userId !== caller.id) {
      if (!marksForOthers(caller)) throw forbidden('You can only mark your own attendance');
      const status = (await this.users.statusesOf([userId])).get(userId);
      if (!status) throw notFound('User not found');
      if (status !== 'approved') {
        throw badRequest('Validation failed', [
          { field: 'userId', message: `the member is ${status}, not approved` },
        ]);
      }
    }
    await this.messConfig.assertMealType(body.mealType);
    const mark: SlotMark = {
      userId,
      date: body.date,
      mealType: body.mealType,
      status: body.status,
      markedBy: caller.id,
      markedAt: this.clock.now(),
    };
    const [written] = await this.upsertRepeatingClosedMonth(mark);
    if (written) {
      this.publish([written], caller.id);
      return { row: written, created: written.created };
    }
    // Re-stated: the slot already holds this status (possibly written by a concurrent identical request).
    const row = await this.repository.findSlot(userId, body.date, body.mealType);
    if (!row) throw notFound('User not found');
    return { row, created: false };
  }

  /**
   * The month-close trigger fires BEFORE INSERT, so it refuses even an upsert that ON CONFLICT would turn into
   * "nothing to change". A retry of a mark the closed month already holds must still succeed as a repeat (as a PUT
   * of the same status does): on that refusal, read the slot and report nothing written when it holds this status.
   * markMany does the same for a whole request.
   */
  private async upsertRepeatingClosedMonth(mark: SlotMark): Promise<WrittenMark[]> {
    try {
      return await this.repository.upsertMarks([mark]);
    } catch (error) {
      await this.storedUnlessClosedMonthChange(error, mark.date, mark.mealType, [mark]);
      return [];
    }
  }

  /**
   * After a write failed: when it was the closed-month refusal and the slot's stored marks already hold every
   * given status (a repeat), returns those stored marks; otherwise rethrows the error.
   */
  private async storedUnlessClosedMonthChange(
    error: unknown,
    date: string,
    mealType: string,
    marks: { userId: string; status: AttendanceStatus }[],
  ): Promise<AttendanceRow[]> {
    if (databaseErrorCode(error) !== MONTH_CLOSED_SQLSTATE) throw error;
    const stored = await this.repository.findSlots(
      date,
      mealType,
      marks.map((mark) => mark.userId),
    );
    const statusOf = new Map(stored.map((row) => [row.userId, row.status]));
    if (marks.every((mark) => statusOf.get(mark.userId) === mark.status)) return stored;
    throw error;
  }

  /** The member who owns the mark, a manager or an admin changes its status. */
  async changeStatus(caller: CurrentMember, id: string, status: AttendanceStatus): Promise<AttendanceRow> {
    const existing = await this.repository.findById(id);
    if (!existing) throw notFound('Attendance record not found');
    if (existing.userId !== caller.id && !marksForOthers(caller)) {
      throw forbidden('You can only change your own attendance');
    }
    const row = await this.repository.changeStatus(id, status, caller.id, this.clock.now());
    if (row) {
      this.publish([{ ...row, created: false }], caller.id);
      return row;
    }
    const current = await this.repository.findById(id);
    if (!current) throw notFound('Attendance record not found');
    return current;
  }

  /**
   * Marks one meal slot for many members in one transaction, all or nothing: an unknown or unapproved member or
   * a repeated userId fails the whole request with one `details` entry per bad row.
   */
  async markMany(caller: CurrentMember, body: BulkAttendanceDto): Promise<BulkOutcome> {
    await this.messConfig.assertMealType(body.mealType);
    const rowErrors = new Map<number, FieldError>();
    const firstIndex = new Map<string, number>();
    body.marks.forEach((mark, i) => {
      const first = firstIndex.get(mark.userId);
      if (first === undefined) firstIndex.set(mark.userId, i);
      else {
        rowErrors.set(i, {
          field: `marks.${i}.userId`,
          message: `this member is already marked at marks.${first}`,
        });
      }
    });
    const markedAt = this.clock.now();
    const userIds = [...firstIndex.keys()];
    // Read before the transaction: the users module answers on its own connection, and the embedded engine queues
    // every other statement behind an open transaction. A member removed meanwhile still fails the foreign key.
    const statuses = await this.users.statusesOf(userIds);
    const slotWrite = this.repository.transaction(async (tx) => {
      body.marks.forEach((mark, i) => {
        if (rowErrors.has(i)) return;
        const status = statuses.get(mark.userId);
        if (status === 'approved') return;
        rowErrors.set(i, {
          field: `marks.${i}.userId`,
          message: status ? `the member is ${status}, not approved` : 'no member has this id',
        });
      });
      if (rowErrors.size) {
        const details = [...rowErrors.entries()].sort(([a], [b]) => a - b).map(([, error]) => error);
        throw badRequest('Validation failed', details);
      }
      const marks = body.marks
        .map((mark): SlotMark => ({
          userId: mark.userId,
          date: body.date,
          mealType: body.mealType,
          status: mark.status,
          markedBy: caller.id,
          markedAt,
        }))
        // One lock order for every batch, so two overlapping batches wait for each other instead of deadlocking.
        .sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
      return {
        written: await this.repository.upsertMarks(marks, tx),
        stored: await this.repository.findSlots(body.date, body.mealType, userIds, tx),
      };
    });
    // A repeat into a closed month succeeds and changes nothing, as in mark(); any change there stays 409.
    const { written, stored } = await slotWrite.catch(async (error: unknown) => ({
      written: [] as WrittenMark[],
      stored: await this.storedUnlessClosedMonthChange(error, body.date, body.mealType, body.marks),
    }));
    this.publish(written, caller.id, { date: body.date, mealType: body.mealType, markedAt });
    const byUser = new Map(stored.map((row) => [row.userId, row]));
    const created = written.filter((row) => row.created).length;
    return {
      rows: body.marks.map((mark) => byUser.get(mark.userId)!),
      created,
      updated: written.length - created,
      unchanged: body.marks.length - written.length,
    };
  }

  /**
   * After commit, one event per written mark; a failing listener never fails the request. A bulk request's marks
   * are flagged `inBulk` and then published again as one AttendanceMarkedInBulk event of the slot.
   */
  private publish(
    marks: WrittenMark[],
    actorId: string,
    bulk?: { date: string; mealType: string; markedAt: Date },
  ): void {
    const events = marks.map((mark): AttendanceEvent => ({
      attendanceId: mark.id,
      userId: mark.userId,
      date: mark.date,
      mealType: mark.mealType,
      status: mark.status,
      ...(mark.created ? {} : { previousStatus: otherStatus(mark.status) }),
      actorId,
      month: monthOf(mark.date),
      markedAt: mark.markedAt.toISOString(),
      ...(bulk ? { inBulk: true } : {}),
    }));
    for (const event of events) publishDomainEvent(this.events, DomainEvents.AttendanceMarked, event);
    if (bulk && events.length) {
      const batch: AttendanceBulkEvent = {
        date: bulk.date,
        mealType: bulk.mealType,
        actorId,
        markedAt: bulk.markedAt.toISOString(),
        marks: events,
      };
      publishDomainEvent(this.events, DomainEvents.AttendanceMarkedInBulk, batch);
    }
  }
}
