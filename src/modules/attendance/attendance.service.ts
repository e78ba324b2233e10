import { can } from '../../common/auth/permissions';
import { Injectable } from '@nestjs/common';
import { type CurrentMember } from '../../common/auth/auth.decorators';
import { conflict, forbidden, notFound } from '../../common/errors/api-error';
import { Clock } from '../../common/time/clock';
import { monthBounds } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import type { DbOrTx } from '../../database/database';
import { type MealTime, MessConfigService } from '../mess-config';
import { UsersService } from '../users';
import { AttendanceEvents } from './attendance-events';
import {
  AttendanceListRow,
  AttendanceRepository,
  MarkWriter,
  SlotMark,
  WrittenMark as StoredMark,
} from './attendance.repository';
import { AttendanceRow, AttendanceStatus } from './attendance.schema';
import { ListAttendanceQuery, MarkAttendanceDto } from './dto/attendance.requests';
import { MESS_MADE_MARK } from './attendance.errors';
import {
  assertInsideMarkingWindow,
  assertMarkableMember,
  assertMayBePresent,
  assertMayMarkFor,
  blockedByMessMark,
  markSource,
  marksForOthers,
  writerOf,
} from './marking-rules';
import { SlotWriter } from './slot-writer';

/** A written mark: `created`, or `previousStatus` holds the status it had before this write. */
export type WrittenMark = StoredMark;

export interface MarkOutcome {
  row: AttendanceRow;
  created: boolean;
}

/**
 * Attendance marks per member and meal slot, one at a time; the owner of the `attendance` table. Bulk marks are
 * BulkMarkingService's, the counter's CounterService's; all write through SlotWriter.
 */
@Injectable()
export class AttendanceService {
  constructor(
    private readonly repository: AttendanceRepository,
    private readonly slots: SlotWriter,
    private readonly messConfig: MessConfigService,
    private readonly events: AttendanceEvents,
    private readonly clock: Clock,
    private readonly users: UsersService,
    private readonly config: AppConfig,
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
   * member's rules (see writerFor); nobody marks a member present for a meal their approved leave covers.
   */
  async mark(caller: CurrentMember, body: MarkAttendanceDto): Promise<MarkOutcome> {
    const userId = body.userId ?? caller.id;
    if (userId !== caller.id) {
      assertMayMarkFor(caller, userId);
      assertMarkableMember((await this.users.standingsOf([userId])).get(userId), body.status);
    }
    const meal = await this.messConfig.assertMealType(body.mealType);
    const writer = await this.writerFor(caller, userId, body.date, meal);
    const mark: SlotMark = {
      userId,
      date: body.date,
      mealType: body.mealType,
      status: body.status,
      source: markSource(caller.id, userId),
      markedBy: caller.id,
      markedAt: this.clock.now(),
    };
    const [written] = await this.slots.writeRepeatingClosedMonth([mark], meal, writer);
    if (written) {
      this.events.marked([written], caller.id);
      return { row: written, created: written.created };
    }
    // Not written: the slot already held this status (a concurrent request may have changed it since), or it holds
    // the kitchen's record that a member's own mark may not change.
    const row = await this.repository.findSlot(userId, body.date, body.mealType);
    if (!row) throw notFound('User not found');
    if (blockedByMessMark(row, body.status)) throw conflict(MESS_MADE_MARK);
    return { row, created: false };
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
      assertMayBePresent((await this.users.standingsOf([existing.userId])).get(existing.userId), status);
    }
    const mark: SlotMark = {
      userId: existing.userId,
      date: existing.date,
      mealType: existing.mealType,
      status,
      source: markSource(caller.id, existing.userId),
      markedBy: caller.id,
      markedAt: this.clock.now(),
    };
    const [written] = await this.slots.write([mark], meal, writer);
    if (written) {
      this.events.marked([written], caller.id);
      return written;
    }
    const current = await this.repository.findById(id);
    if (!current) throw notFound('Attendance record not found');
    if (blockedByMessMark(current, status)) throw conflict(MESS_MADE_MARK);
    return current;
  }

  /**
   * Who writes a mark for `userId` (see writerOf); a member's own mark (not a manager's or an admin's) keeps to the
   * mess's markingWindow.
   */
  private async writerFor(
    caller: CurrentMember,
    userId: string,
    date: string,
    meal: MealTime | undefined,
  ): Promise<MarkWriter> {
    const callerStanding =
      userId === caller.id ? (await this.users.standingsOf([caller.id])).get(caller.id) : undefined;
    const writer = writerOf(caller, userId, callerStanding);
    if (writer === 'member') {
      const { markingWindow } = await this.messConfig.settings();
      assertInsideMarkingWindow(this.clock.now(), date, meal, markingWindow, this.config.messTimezone);
    }
    return writer;
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
    this.events.marked(rows, actorId);
  }
}
