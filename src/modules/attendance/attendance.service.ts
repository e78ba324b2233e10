import { can } from '../../common/auth/permissions';
import { Injectable } from '@nestjs/common';
import { type CurrentMember } from '../../common/auth/auth.decorators';
import type * as QrCodes from 'qrcode';
import {
  ApiError,
  badRequest,
  conflict,
  FieldError,
  forbidden,
  notFound,
} from '../../common/errors/api-error';
import { databaseErrorCode } from '../../common/errors/database-errors';
import { AttendanceBulkEvent, AttendanceEvent } from '../../common/events/event-map';
import { DomainEventBus } from '../../common/events/domain-event-bus';
import { Clock } from '../../common/time/clock';
import { addDays, localParts, mealSpan, monthBounds, monthOf, zonedInstant } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import type { DbOrTx } from '../../database/database';
import { AuditTrail } from '../audit-trail';
import { LeaveCalendar } from '../leave-calendar';
import { type MealTime, MessConfigService } from '../mess-config';
import { UsersService } from '../users';
import {
  AttendanceListRow,
  AttendanceRepository,
  MarkWriter,
  SlotMark,
  WrittenMark as StoredMark,
} from './attendance.repository';
import { AttendanceRow, AttendanceStatus } from './attendance.schema';
import {
  BulkAttendanceDto,
  ListAttendanceQuery,
  MarkAttendanceDto,
  PassQuery,
} from './dto/attendance.requests';
import {
  INVALID_PASS,
  MARKING_CLOSED,
  MESS_MADE_MARK,
  MEMBER_NOT_A_DINER,
  NOT_A_DINER,
  ON_LEAVE,
  PASS_MEAL_OVER,
} from './attendance.errors';
import { CounterPasses } from './counter-pass';
import { optionalPackage } from '../../common/runtime/optional-package';

/** A pass is valid from this long before its meal starts. */
export const PASS_LEAD_MINUTES = 30;

/** A written mark: `created`, or `previousStatus` holds the status it had before this write. */
export type WrittenMark = StoredMark;

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
const marksForOthers = (caller: CurrentMember): boolean => can(caller, 'attendance.mark-others');

// Marks are written only when their status differs and there are two statuses, so a changed mark was the other.
const otherStatus = (status: AttendanceStatus): AttendanceStatus =>
  status === 'present' ? 'absent' : 'present';

/** Attendance marks per member and meal slot; the owner of the `attendance` table. */
@Injectable()
export class AttendanceService {
  constructor(
    private readonly repository: AttendanceRepository,
    private readonly messConfig: MessConfigService,
    private readonly events: DomainEventBus,
    private readonly clock: Clock,
    private readonly users: UsersService,
    private readonly leave: LeaveCalendar,
    private readonly passes: CounterPasses,
    private readonly config: AppConfig,
    private readonly audit: AuditTrail,
  ) {}

  /** Students see only their own marks, whatever `userId` they pass; everyone else sees any member's. */
  async list(
    caller: CurrentMember,
    query: ListAttendanceQuery,
  ): Promise<{ rows: AttendanceListRow[]; total: number }> {
    const month = query.month ? monthBounds(query.month) : undefined;
    return this.repository.list({
      userId: can(caller, 'attendance.read-all') ? query.userId : caller.id,
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
   * status writes nothing (markedAt and markedBy stay) and publishes no event. A member's own mark keeps to the
   * member's rules (see memberRules); nobody marks a member present for a meal their approved leave covers.
   */
  async mark(caller: CurrentMember, body: MarkAttendanceDto): Promise<MarkOutcome> {
    const userId = body.userId ?? caller.id;
    if (userId !== caller.id) {
      if (!marksForOthers(caller)) throw forbidden('You can only mark your own attendance');
      const standing = (await this.users.standingsOf([userId])).get(userId);
      if (!standing) throw notFound('User not found');
      if (standing.status !== 'approved') {
        throw badRequest('Validation failed', [
          { field: 'userId', message: `the member is ${standing.status}, not approved` },
        ]);
      }
      // Every present mark is billed: nobody marks present a member who does not dine.
      if (!standing.dines && body.status === 'present') throw conflict(MEMBER_NOT_A_DINER);
    }
    const meal = await this.messConfig.assertMealType(body.mealType);
    const writer = await this.writerFor(caller, userId, body.date, meal);
    const mark: SlotMark = {
      userId,
      date: body.date,
      mealType: body.mealType,
      status: body.status,
      source: userId === caller.id ? 'member' : 'mess',
      markedBy: caller.id,
      markedAt: this.clock.now(),
    };
    const [written] = await this.writeRepeatingClosedMonth([mark], meal, writer);
    if (written) {
      this.publish([written], caller.id);
      return { row: written, created: written.created };
    }
    // Not written: the slot already held this status (a concurrent request may have changed it since), or it holds
    // the kitchen's record that a member's own mark may not change.
    const row = await this.repository.findSlot(userId, body.date, body.mealType);
    if (!row) throw notFound('User not found');
    if (row.status !== body.status && row.source !== 'member') throw conflict(MESS_MADE_MARK);
    return { row, created: false };
  }

  /**
   * Who writes a mark for `userId`, and the checks that follow: a member's own mark (not a manager's or an
   * admin's) keeps to the markingWindow; nobody with `dines: false` marks their own meals.
   */
  private async writerFor(
    caller: CurrentMember,
    userId: string,
    date: string,
    meal: MealTime | undefined,
  ): Promise<MarkWriter> {
    if (userId !== caller.id) return 'mess';
    const standing = (await this.users.standingsOf([caller.id])).get(caller.id);
    if (standing && !standing.dines) throw conflict(NOT_A_DINER);
    if (marksForOthers(caller)) return 'mess';
    const { markingWindow } = await this.messConfig.settings();
    if (markingWindow && meal) {
      const now = this.clock.now();
      const opens = zonedInstant(addDays(date, -markingWindow.daysAhead), '00:00', this.config.messTimezone);
      const { end } = mealSpan(date, meal, this.config.messTimezone);
      const closes = new Date(end.getTime() + markingWindow.closesMinutesAfterEnd * 60_000);
      if (now < opens || now > closes) throw conflict(MARKING_CLOSED);
    }
    return 'member';
  }

  /**
   * Writes marks of one meal slot in one transaction: the leave locks of the members marked present (shared) and
   * the refusal of any whose approved leave covers the meal (one statement), then the upsert, which returns each
   * written row with the status it held before (to tell a changed status from a taken-over one). Marks that wrote
   * nothing are not returned.
   */
  private writeSlot(
    marks: SlotMark[],
    meal: MealTime | undefined,
    writer: MarkWriter,
    db?: DbOrTx,
    fieldOf?: (userId: string) => string,
  ): Promise<WrittenMark[]> {
    const work = async (tx: DbOrTx): Promise<WrittenMark[]> => {
      const present = marks.filter((mark) => mark.status === 'present').map((mark) => mark.userId);
      if (present.length && meal) {
        const { start } = mealSpan(marks[0].date, meal, this.config.messTimezone);
        const onLeave = await this.leave.lockAndFindOnLeave(tx, present, start);
        if (onLeave.size) {
          throw new ApiError(
            409,
            ON_LEAVE,
            fieldOf
              ? marks
                  .filter((mark) => onLeave.has(mark.userId) && mark.status === 'present')
                  .map((mark) => ({
                    field: fieldOf(mark.userId),
                    message: 'the member is on approved leave for this meal',
                  }))
                  .sort((x, y) => x.field.localeCompare(y.field, 'en', { numeric: true }))
              : undefined,
          );
        }
      }
      const written = await this.repository.upsertMarks(marks, tx, writer);
      await this.recordAfterMeal(tx, written, meal);
      return written;
    };
    return db ? work(db) : this.repository.transaction(work);
  }

  /**
   * Every mark made or changed after its meal ended is in the audit trail, in the write's transaction: those are the
   * marks that move a bill after the fact.
   */
  private async recordAfterMeal(
    tx: DbOrTx,
    written: WrittenMark[],
    meal: MealTime | undefined,
  ): Promise<void> {
    if (!written.length || !meal) return;
    const { end } = mealSpan(written[0].date, meal, this.config.messTimezone);
    if (this.clock.now() < end) return;
    for (const mark of written) {
      if (!mark.created && mark.previousStatus === mark.status) continue;
      await this.audit.record(tx, {
        actorId: mark.markedBy,
        action: mark.created ? 'marked-after-meal' : 'changed-after-meal',
        entity: 'attendance',
        entityId: mark.id,
        before: mark.created ? undefined : { status: mark.previousStatus ?? otherStatus(mark.status) },
        after: {
          userId: mark.userId,
          date: mark.date,
          mealType: mark.mealType,
          status: mark.status,
          source: mark.source,
        },
      });
    }
  }

  /**
   * The month-close trigger fires BEFORE INSERT, so it refuses even an upsert that ON CONFLICT would turn into
   * "nothing to change". A retry of a mark the closed month already holds must still succeed as a repeat (as a PUT
   * of the same status does): on that refusal, read the slot and report nothing written when it holds this status.
   * markMany does the same for a whole request.
   */
  private async writeRepeatingClosedMonth(
    marks: SlotMark[],
    meal: MealTime | undefined,
    writer: MarkWriter,
  ): Promise<WrittenMark[]> {
    try {
      return await this.writeSlot(marks, meal, writer);
    } catch (error) {
      await this.storedUnlessClosedMonthChange(error, marks[0].date, marks[0].mealType, marks);
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

  /**
   * The member who owns the mark, a manager or an admin changes its status; the owner under the member's rules
   * (not a mark the mess made, inside the marking window, not present while on leave).
   */
  async changeStatus(caller: CurrentMember, id: string, status: AttendanceStatus): Promise<AttendanceRow> {
    const existing = await this.repository.findById(id);
    if (!existing) throw notFound('Attendance record not found');
    if (existing.userId !== caller.id && !marksForOthers(caller)) {
      throw forbidden('You can only change your own attendance');
    }
    if (existing.status === status) return existing;
    const meal = (await this.messConfig.settings()).mealTimes.find((m) => m.name === existing.mealType);
    const writer = await this.writerFor(caller, existing.userId, existing.date, meal);
    if (writer === 'member' && existing.source !== 'member') throw conflict(MESS_MADE_MARK);
    if (writer === 'mess' && status === 'present' && existing.userId !== caller.id) {
      const standing = (await this.users.standingsOf([existing.userId])).get(existing.userId);
      if (standing && !standing.dines) throw conflict(MEMBER_NOT_A_DINER);
    }
    const mark: SlotMark = {
      userId: existing.userId,
      date: existing.date,
      mealType: existing.mealType,
      status,
      source: existing.userId === caller.id ? 'member' : 'mess',
      markedBy: caller.id,
      markedAt: this.clock.now(),
    };
    const [written] = await this.writeSlot([mark], meal, writer);
    if (written) {
      this.publish([written], caller.id);
      return written;
    }
    const current = await this.repository.findById(id);
    if (!current) throw notFound('Attendance record not found');
    if (current.status !== status && current.source !== 'member') throw conflict(MESS_MADE_MARK);
    return current;
  }

  /**
   * Marks one meal slot for many members in one transaction, all or nothing: an unknown or unapproved member or
   * a repeated userId fails the whole request with one `details` entry per bad row.
   */
  async markMany(caller: CurrentMember, body: BulkAttendanceDto): Promise<BulkOutcome> {
    const meal = await this.messConfig.assertMealType(body.mealType);
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
    const standings = await this.users.standingsOf(userIds);
    const slotWrite = this.repository.transaction(async (tx) => {
      body.marks.forEach((mark, i) => {
        if (rowErrors.has(i)) return;
        const standing = standings.get(mark.userId);
        if (standing?.status === 'approved') {
          // Every present mark is billed: nobody marks present a member who does not dine.
          if (standing.dines || mark.status !== 'present') return;
          rowErrors.set(i, { field: `marks.${i}.userId`, message: 'the member does not dine at the mess' });
          return;
        }
        rowErrors.set(i, {
          field: `marks.${i}.userId`,
          message: standing ? `the member is ${standing.status}, not approved` : 'no member has this id',
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
          source: mark.userId === caller.id ? 'member' : 'mess',
          markedBy: caller.id,
          markedAt,
        }))
        // One lock order for every batch, so two overlapping batches wait for each other instead of deadlocking.
        .sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
      return {
        written: await this.writeSlot(
          marks,
          meal,
          'mess',
          tx,
          (userId) => `marks.${firstIndex.get(userId)}.userId`,
        ),
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

  // ---- the counter ----

  /**
   * A signed pass for the caller's meal: valid from PASS_LEAD_MINUTES before the meal's start to its end. A meal
   * that has ended gets none (400); a later one gets a pass that becomes valid in its window.
   */
  async issuePass(
    caller: CurrentMember,
    query: PassQuery,
  ): Promise<{ pass: string; validFrom: Date; expiresAt: Date; qrSvg: string }> {
    const date = query.date ?? localParts(this.clock.now(), this.config.messTimezone).date;
    const meal = await this.messConfig.assertMealType(query.mealType);
    const { start, end } = mealSpan(date, meal, this.config.messTimezone);
    if (this.clock.now() >= end)
      throw badRequest(PASS_MEAL_OVER, [{ field: 'date', message: PASS_MEAL_OVER }]);
    const validFrom = new Date(start.getTime() - PASS_LEAD_MINUTES * 60_000);
    const pass = this.passes.issue({
      userId: caller.id,
      date,
      mealType: meal.name,
      validFrom: Math.floor(validFrom.getTime() / 1000),
      expiresAt: Math.floor(end.getTime() / 1000),
    });
    // One byte-mode segment: a pass is base64url, mostly lower case, which no denser QR mode holds, so the encoder's
    // search for the best mix of modes (a third of its time) could at most shorten a long run of digits or capitals
    // into another segment; the text a scanner reads is the same.
    const qrSvg = await qrCodes().toString([{ data: Buffer.from(pass), mode: 'byte' }], {
      type: 'svg',
      errorCorrectionLevel: 'M',
      margin: 2,
    });
    return { pass, validFrom, expiresAt: end, qrSvg };
  }

  /**
   * The counter marks the pass's member present for its meal: `repeat` when the mess or the counter had already
   * recorded them present (a second plate). A member's own present mark is taken over as the kitchen's record.
   */
  async scan(caller: CurrentMember, pass: string): Promise<{ row: AttendanceRow; repeat: boolean }> {
    const claims = this.passes.verify(pass, this.clock.now());
    if (!claims) throw badRequest(INVALID_PASS, [{ field: 'pass', message: INVALID_PASS }]);
    const standing = (await this.users.standingsOf([claims.userId])).get(claims.userId);
    if (standing?.status !== 'approved') {
      throw badRequest(INVALID_PASS, [{ field: 'pass', message: 'the member is not approved' }]);
    }
    if (!standing.dines) throw conflict(MEMBER_NOT_A_DINER);
    const meal = (await this.messConfig.settings()).mealTimes.find((m) => m.name === claims.mealType);
    const mark: SlotMark = {
      userId: claims.userId,
      date: claims.date,
      mealType: claims.mealType,
      status: 'present',
      source: 'counter',
      markedBy: caller.id,
      markedAt: this.clock.now(),
    };
    const [written] = await this.writeSlot([mark], meal, 'mess');
    if (written) {
      this.publish([written], caller.id);
      return { row: written, repeat: false };
    }
    const row = await this.repository.findSlot(claims.userId, claims.date, claims.mealType);
    if (!row) throw notFound('Attendance record not found');
    return { row, repeat: true };
  }

  // ---- for the leave module: an approval turns the member's own present marks absent ----

  /** The member's marks between two dates, locked until `tx` ends. */
  memberMarksForUpdate(userId: string, from: string, to: string, tx: DbOrTx): Promise<AttendanceRow[]> {
    return this.repository.memberMarksForUpdate(userId, from, to, tx);
  }

  /** Sets these present marks absent in `tx`; publish the result with announceLeaveChanges after commit. */
  async setAbsentForLeave(ids: string[], actorId: string, tx: DbOrTx): Promise<WrittenMark[]> {
    const rows = await this.repository.setAbsent(ids, actorId, this.clock.now(), tx);
    return rows.map((row) => ({ ...row, created: false }));
  }

  announceLeaveChanges(rows: WrittenMark[], actorId: string): void {
    this.publish(rows, actorId);
  }

  /**
   * After commit, one event per written mark; a failing listener never fails the request. A bulk request's marks
   * are flagged `inBulk` and then published again as one AttendanceMarkedInBulk event of the slot.
   */
  private publish(
    written: WrittenMark[],
    actorId: string,
    bulk?: { date: string; mealType: string; markedAt: Date },
  ): void {
    // A mark taken over with its status unchanged changes no figure and is no news.
    const marks = written.filter((mark) => mark.created || mark.previousStatus !== mark.status);
    const events = marks.map((mark): AttendanceEvent => ({
      attendanceId: mark.id,
      userId: mark.userId,
      date: mark.date,
      mealType: mark.mealType,
      status: mark.status,
      ...(mark.created ? {} : { previousStatus: mark.previousStatus ?? otherStatus(mark.status) }),
      actorId,
      month: monthOf(mark.date),
      markedAt: mark.markedAt.toISOString(),
      ...(bulk ? { inBulk: true } : {}),
    }));
    for (const event of events) this.events.publish('attendance.marked', event);
    if (bulk && events.length) {
      const batch: AttendanceBulkEvent = {
        date: bulk.date,
        mealType: bulk.mealType,
        actorId,
        markedAt: bulk.markedAt.toISOString(),
        marks: events,
      };
      this.events.publish('attendance.marked-in-bulk', batch);
    }
  }
}

/** The QR encoder, loaded with the first pass (~60 modules a replica that issues none need not load at start). */
const qrCodes = () => optionalPackage<typeof QrCodes>('qrcode');
