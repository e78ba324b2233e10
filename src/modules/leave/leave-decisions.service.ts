import { Injectable, Logger } from '@nestjs/common';
import type { CurrentMember } from '../../common/auth/auth.decorators';
import { notFound } from '../../common/errors/api-error';
import { DomainEventBus } from '../../common/events/domain-event-bus';
import { type LeaveEvent } from '../../common/events/event-map';
import { Clock } from '../../common/time/clock';
import { monthOf } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import { Database, type DbOrTx } from '../../database/database';
import { inTransaction } from '../../database/transactions';
import { AttendanceService, type WrittenMark } from '../attendance';
import { type AuditEntry, AuditTrail } from '../audit-trail';
import { BillingService } from '../billing';
import { type MealTime, MessConfigService } from '../mess-config';
import { closedMonthError, LEAVE_NOT_FOUND } from './leave.errors';
import { assertCancellable, assertPending, marksToTurnAbsent, mayTouch, monthsOf } from './leave-policy';
import { LeaveRecords, type LeaveRow } from '../leave-calendar';

/** A decision's outcome: the leave, and the marks it turned absent (announced after commit). */
export interface Decided {
  row: LeaveRow;
  turnedAbsent: WrittenMark[];
}

/**
 * Deciding leave: approval (which turns the member's own present marks absent), rejection and cancelling, each in
 * one transaction under the member's leave lock with its audit record; the decision announced after commit.
 */
@Injectable()
export class LeaveDecisionsService {
  // The context leave's log lines have always had, whichever service writes them.
  private readonly logger = new Logger('LeaveService');

  constructor(
    private readonly records: LeaveRecords,
    // Leave opens its own transactions (run again whole after a deadlock); the records take them.
    private readonly database: Database,
    private readonly attendance: AttendanceService,
    private readonly billing: BillingService,
    private readonly messConfig: MessConfigService,
    private readonly events: DomainEventBus,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly audit: AuditTrail,
  ) {}

  async approve(caller: CurrentMember, id: string): Promise<LeaveRow> {
    const found = await this.findOrThrow(id);
    if (found.status === 'approved') return found;
    const [closed] = await this.billing.closedAmong(monthsOf(found));
    if (closed) throw closedMonthError(closed);
    // Read before the transaction: on the embedded engine a statement outside it would wait for it forever.
    const { mealTimes } = await this.messConfig.settings();
    const { row, turnedAbsent } = await inTransaction(this.database.db, async (tx): Promise<Decided> => {
      await this.records.lockMember(tx, found.userId, 'exclusive');
      const leave = (await this.records.findById(id, tx))!;
      if (leave.status === 'approved') return { row: leave, turnedAbsent: [] };
      assertPending(leave, 'approved');
      const turned = await this.turnOwnMarksAbsent(leave, mealTimes, caller.id, tx);
      const approved = await this.records.update(
        id,
        { status: 'approved', decidedBy: caller.id, decidedAt: this.clock.now() },
        tx,
      );
      await this.record(tx, caller.id, 'approved', leave, approved, turned);
      await this.publishWithin(tx, approved, caller.id, turned);
      return { row: approved, turnedAbsent: turned };
    });
    if (found.status !== row.status) this.announce(row, turnedAbsent, caller.id);
    return row;
  }

  async reject(caller: CurrentMember, id: string, reason?: string): Promise<LeaveRow> {
    const found = await this.findOrThrow(id);
    if (found.status === 'rejected') return found;
    const row = await inTransaction(this.database.db, async (tx) => {
      await this.records.lockMember(tx, found.userId, 'exclusive');
      const leave = (await this.records.findById(id, tx))!;
      if (leave.status === 'rejected') return leave;
      assertPending(leave, 'rejected');
      const rejected = await this.records.update(
        id,
        { status: 'rejected', decidedBy: caller.id, decidedAt: this.clock.now(), decisionNote: reason ?? '' },
        tx,
      );
      await this.record(tx, caller.id, 'rejected', leave, rejected);
      await this.publishWithin(tx, rejected, caller.id, []);
      return rejected;
    });
    if (found.status !== row.status) this.announce(row, [], caller.id);
    return row;
  }

  /**
   * The member cancels their own leave before its first meal starts; a manager or an admin any time. Marks that an
   * approval turned absent stay absent (the member marks again what they will eat).
   */
  async cancel(caller: CurrentMember, id: string): Promise<LeaveRow> {
    const found = await this.findOrThrow(id);
    const manages = mayTouch(caller, found);
    if (found.status === 'cancelled') return found;
    const row = await inTransaction(this.database.db, async (tx) => {
      await this.records.lockMember(tx, found.userId, 'exclusive');
      const leave = (await this.records.findById(id, tx))!;
      if (leave.status === 'cancelled') return leave;
      assertCancellable(leave, { manages, now: this.clock.now() });
      const cancelled = await this.records.update(id, { status: 'cancelled' }, tx);
      await this.record(tx, caller.id, 'cancelled', leave, cancelled);
      await this.publishWithin(tx, cancelled, caller.id, []);
      return cancelled;
    });
    if (found.status !== row.status) this.logger.log({ leaveId: id, by: caller.id }, 'Leave cancelled');
    return row;
  }

  /**
   * Members moved to another mess (extension 2.2), in the move's transaction `tx`, acting in the mess they left:
   * their pending and approved leave there whose meals are not over is cancelled, each in that mess's audit trail
   * (`leave`, `cancelled`), under the members' leave locks, each with its `leave.decided` event (the outbox); a few
   * statements however many members. Returns what was cancelled, for `announceCancelledForMove` after the commit.
   */
  async cancelForMoveWithin(tx: DbOrTx, userIds: readonly string[], actorId: string): Promise<LeaveRow[]> {
    if (!userIds.length) return [];
    await this.records.lockMembers(tx, userIds);
    const cancelled = await this.records.cancelActiveAfter(tx, userIds, this.clock.now());
    await this.audit.recordMany(
      tx,
      cancelled.map(({ before, after }) => this.entry(actorId, 'cancelled', before, after)),
    );
    for (const { after } of cancelled) await this.publishWithin(tx, after, actorId, []);
    return cancelled.map((c) => c.after);
  }

  /** After the move committed, in the mess the member left: each cancelled leave's line in the log. */
  announceCancelledForMove(cancelled: LeaveRow[], actorId: string): void {
    for (const row of cancelled) {
      this.logger.log({ leaveId: row.id, by: actorId }, 'Leave cancelled: the member moved to another mess');
    }
  }

  /**
   * In the transaction of a new request: one approved at once turns the member's covered marks absent; either way
   * the request goes into the audit trail.
   */
  async recordRequest(
    tx: DbOrTx,
    inserted: LeaveRow,
    mealTimes: MealTime[],
    actorId: string,
  ): Promise<Decided> {
    const approved = inserted.status === 'approved';
    const turned = approved ? await this.turnOwnMarksAbsent(inserted, mealTimes, actorId, tx) : [];
    await this.record(tx, actorId, approved ? 'approved' : 'requested', undefined, inserted, turned);
    if (approved) await this.publishWithin(tx, inserted, actorId, turned);
    return { row: inserted, turnedAbsent: turned };
  }

  /**
   * After commit: the marks the decision changed (their events), and the decision in the log; its `leave.decided`
   * event (LEAVE_DECIDED) was written with it (`publishWithin`).
   */
  announce(row: LeaveRow, turnedAbsent: WrittenMark[], actorId: string): void {
    this.logger.log(
      {
        leaveId: row.id,
        userId: row.userId,
        status: row.status,
        by: actorId,
        turnedAbsent: turnedAbsent.length,
      },
      'Leave decided',
    );
    this.attendance.announceLeaveChanges(turnedAbsent, actorId);
  }

  /**
   * In the approval's transaction: the member's present marks for the meals the leave covers become absent. A
   * covered meal the mess recorded the member eating (a scan, a manager's mark) refuses the approval.
   */
  private async turnOwnMarksAbsent(
    leave: LeaveRow,
    mealTimes: MealTime[],
    actorId: string,
    tx: DbOrTx,
  ): Promise<WrittenMark[]> {
    const marks = await this.attendance.memberMarksForUpdate(
      leave.userId,
      leave.startDate,
      leave.endDate,
      tx,
    );
    const covered = marksToTurnAbsent(leave, marks, mealTimes, this.config.messTimezone);
    return this.attendance.setAbsentForLeave(
      covered.map((mark) => mark.id),
      actorId,
      tx,
    );
  }

  /** A leave decision in the audit trail, in the decision's transaction, with the marks it turned absent. */
  private record(
    tx: DbOrTx,
    actorId: string,
    action: string,
    before: LeaveRow | undefined,
    after: LeaveRow,
    turnedAbsent: WrittenMark[] = [],
  ): Promise<void> {
    return this.audit.record(tx, this.entry(actorId, action, before, after, turnedAbsent));
  }

  private entry(
    actorId: string,
    action: string,
    before: LeaveRow | undefined,
    after: LeaveRow,
    turnedAbsent: WrittenMark[] = [],
  ): AuditEntry {
    const view = (row: LeaveRow) => ({
      userId: row.userId,
      startDate: row.startDate,
      endDate: row.endDate,
      startMealType: row.startMealType,
      endMealType: row.endMealType,
      days: row.days,
      status: row.status,
      decisionNote: row.decisionNote,
    });
    return {
      actorId,
      action,
      entity: 'leave',
      entityId: after.id,
      before: before && view(before),
      after: {
        ...view(after),
        ...(turnedAbsent.length
          ? {
              marksTurnedAbsent: turnedAbsent.map((mark) => ({
                attendanceId: mark.id,
                date: mark.date,
                mealType: mark.mealType,
                from: 'present',
                to: 'absent',
              })),
            }
          : {}),
      },
    };
  }

  /** The decision's (or cancellation's) `leave.decided` event, in its transaction `tx` (the outbox), in the leave's mess. */
  private async publishWithin(
    tx: DbOrTx,
    row: LeaveRow,
    actorId: string,
    turnedAbsent: WrittenMark[],
  ): Promise<void> {
    const event: LeaveEvent = {
      leaveId: row.id,
      userId: row.userId,
      status: row.status,
      startDate: row.startDate,
      endDate: row.endDate,
      startMealType: row.startMealType,
      endMealType: row.endMealType,
      decidedBy: row.decidedBy,
      actorId,
      note: row.decisionNote,
      months: [...new Set(turnedAbsent.map((mark) => monthOf(mark.date)))],
    };
    await this.events.publishWithin(tx, 'leave.decided', { ...event, messId: row.messId });
  }

  private async findOrThrow(id: string): Promise<LeaveRow> {
    const row = await this.records.findById(id);
    if (!row) throw notFound(LEAVE_NOT_FOUND);
    return row;
  }
}
