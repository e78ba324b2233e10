import { can } from '../../common/auth/permissions';
import { Injectable, Logger } from '@nestjs/common';
import type { CurrentMember } from '../../common/auth/auth.decorators';
import { badRequest, conflict, forbidden, notFound } from '../../common/errors/api-error';
import { type LeaveEvent } from '../../common/events/event-map';
import { DomainEventBus } from '../../common/events/domain-event-bus';
import { Clock } from '../../common/time/clock';
import { mealSpan, monthBounds, monthOf, monthsBetween } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import type { DbOrTx } from '../../database/database';
import { BillingService } from '../billing';
import { AuditTrail } from '../audit-trail';
import { AttendanceService, type WrittenMark } from '../attendance';
import { type MealTime, MessConfigService } from '../mess-config';
import { UsersService } from '../users';
import { CreateLeaveDto, ListLeavesQuery } from './dto/leave.requests';
import { leaveDates, overCap } from './leave-days';
import {
  ALREADY_DECIDED,
  CANCEL_TOO_LATE,
  LEAVE_EATEN,
  LEAVE_NOT_FOUND,
  LEAVE_OVERLAPS,
  ONLY_PENDING_APPROVED,
  ONLY_PENDING_REJECTED,
  OWN_LEAVE_ONLY,
} from './leave.errors';
import { type LeaveListRow, LeaveRecords, type LeaveRow } from '../leave-calendar';

/** The longest leave one request may ask for. */
export const MAX_LEAVE_DAYS = 366;

const decidesLeave = (caller: CurrentMember): boolean => can(caller, 'leave.decide');

const closedMonthError = (month: string) =>
  conflict(`Month ${month} is closed: its bill is frozen. An admin can reopen it.`);

/** A decision's outcome: the leave, and the marks it turned absent (announced after commit). */
interface Decided {
  row: LeaveRow;
  turnedAbsent: WrittenMark[];
}

/** Leave: asking, the policy's rules, approval (which turns the member's own present marks absent) and cancelling. */
@Injectable()
export class LeaveService {
  private readonly logger = new Logger(LeaveService.name);

  constructor(
    private readonly records: LeaveRecords,
    private readonly attendance: AttendanceService,
    private readonly billing: BillingService,
    private readonly messConfig: MessConfigService,
    private readonly users: UsersService,
    private readonly events: DomainEventBus,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly audit: AuditTrail,
  ) {}

  /** A leave decision in the audit trail, in the decision's transaction, with the marks it turned absent. */
  private record(
    tx: DbOrTx,
    actorId: string,
    action: string,
    before: LeaveRow | undefined,
    after: LeaveRow,
    turnedAbsent: WrittenMark[] = [],
  ): Promise<void> {
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
    return this.audit.record(tx, {
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
    });
  }

  async create(caller: CurrentMember, body: CreateLeaveDto): Promise<LeaveRow> {
    const userId = body.userId ?? caller.id;
    const forMember = userId !== caller.id;
    if (forMember) {
      if (!decidesLeave(caller)) throw forbidden(OWN_LEAVE_ONLY);
      const status = (await this.users.statusesOf([userId])).get(userId);
      if (!status) throw notFound('User not found');
      if (status !== 'approved') {
        throw badRequest('Validation failed', [
          { field: 'userId', message: `the member is ${status}, not approved` },
        ]);
      }
    }
    const { mealTimes, leavePolicy: policy } = await this.messConfig.settings();
    const byStart = [...mealTimes].sort((a, b) => (a.startTime < b.startTime ? -1 : 1));
    const startMeal = body.startMealType
      ? await this.messConfig.assertMealType(body.startMealType, 'startMealType')
      : byStart[0];
    const endMeal = body.endMealType
      ? await this.messConfig.assertMealType(body.endMealType, 'endMealType')
      : byStart[byStart.length - 1];
    if (body.endDate < body.startDate) {
      throw badRequest('Validation failed', [
        { field: 'endDate', message: 'endDate must not be before startDate' },
      ]);
    }
    const startsAt = this.span(body.startDate, startMeal).start;
    const endsAt = this.span(body.endDate, endMeal).end;
    if (endsAt <= startsAt) {
      throw badRequest('Validation failed', [
        {
          field: 'endMealType',
          message: `the leave ends (${endMeal.name}) before it starts (${startMeal.name})`,
        },
      ]);
    }
    const days = leaveDates(body.startDate, body.endDate).length;
    if (days < policy.minDays) {
      throw badRequest('Validation failed', [
        { field: 'endDate', message: `a leave is at least ${policy.minDays} day(s); this one is ${days}` },
      ]);
    }
    if (days > MAX_LEAVE_DAYS) {
      throw badRequest('Validation failed', [
        { field: 'endDate', message: `a leave is at most ${MAX_LEAVE_DAYS} days; ask for the rest later` },
      ]);
    }
    const now = this.clock.now();
    if (!forMember && startsAt.getTime() - now.getTime() < policy.applyBeforeHours * 3_600_000) {
      throw badRequest('Validation failed', [
        {
          field: 'startDate',
          message: `ask at least ${policy.applyBeforeHours} hours before the first meal (${startMeal.name} on ${body.startDate}); a manager can record a late leave`,
        },
      ]);
    }
    const [closed] = await this.billing.closedAmong(
      monthsBetween(monthOf(body.startDate), monthOf(body.endDate)),
    );
    if (closed) throw closedMonthError(closed);
    const approveNow = forMember || !policy.requiresApproval;

    const { row, turnedAbsent } = await this.records.transaction(async (tx): Promise<Decided> => {
      // Two requests of one member take turns here, so the second sees the first: overlap and cap hold under races.
      await this.records.lockMember(tx, userId, 'exclusive');
      if ((await this.records.activeOverlapping(userId, startsAt, endsAt, tx)).length) {
        throw conflict(LEAVE_OVERLAPS);
      }
      if (policy.maxDaysPerMonth > 0) {
        const first = monthBounds(monthOf(body.startDate)).first;
        const last = monthBounds(monthOf(body.endDate)).last;
        const existing = await this.records.activeBetweenDates(userId, first, last, tx);
        const over = overCap(
          policy.maxDaysPerMonth,
          { from: body.startDate, to: body.endDate },
          existing.map((leave) => ({ from: leave.startDate, to: leave.endDate })),
        );
        if (over) {
          throw badRequest('Validation failed', [
            {
              field: 'endDate',
              message: `leave days in ${over.month} would be ${over.days}, over the monthly cap of ${policy.maxDaysPerMonth}`,
            },
          ]);
        }
      }
      const inserted = await this.records.insert(
        {
          userId,
          startDate: body.startDate,
          endDate: body.endDate,
          startMealType: startMeal.name,
          endMealType: endMeal.name,
          startsAt,
          endsAt,
          days,
          reason: body.reason ?? '',
          status: approveNow ? 'approved' : 'pending',
          requestedBy: caller.id,
          decidedBy: forMember ? caller.id : null,
          decidedAt: approveNow ? now : null,
        },
        tx,
      );
      const turned = approveNow ? await this.turnOwnMarksAbsent(inserted, mealTimes, caller.id, tx) : [];
      await this.record(tx, caller.id, approveNow ? 'approved' : 'requested', undefined, inserted, turned);
      return { row: inserted, turnedAbsent: turned };
    });
    this.logger.log({ leaveId: row.id, userId, by: caller.id, status: row.status }, 'Leave asked for');
    if (approveNow) this.announce(row, turnedAbsent, caller.id);
    return row;
  }

  async approve(caller: CurrentMember, id: string): Promise<LeaveRow> {
    const found = await this.findOrThrow(id);
    if (found.status === 'approved') return found;
    const [closed] = await this.billing.closedAmong(
      monthsBetween(monthOf(found.startDate), monthOf(found.endDate)),
    );
    if (closed) throw closedMonthError(closed);
    // Read before the transaction: on the embedded engine a statement outside it would wait for it forever.
    const { mealTimes } = await this.messConfig.settings();
    const { row, turnedAbsent } = await this.records.transaction(async (tx): Promise<Decided> => {
      await this.records.lockMember(tx, found.userId, 'exclusive');
      const leave = (await this.records.findById(id, tx))!;
      if (leave.status === 'approved') return { row: leave, turnedAbsent: [] };
      if (leave.status !== 'pending') throw conflict(`${ONLY_PENDING_APPROVED}; this one is ${leave.status}`);
      const turned = await this.turnOwnMarksAbsent(leave, mealTimes, caller.id, tx);
      const approved = await this.records.update(
        id,
        { status: 'approved', decidedBy: caller.id, decidedAt: this.clock.now() },
        tx,
      );
      await this.record(tx, caller.id, 'approved', leave, approved, turned);
      return { row: approved, turnedAbsent: turned };
    });
    if (found.status !== row.status) this.announce(row, turnedAbsent, caller.id);
    return row;
  }

  async reject(caller: CurrentMember, id: string, reason?: string): Promise<LeaveRow> {
    const found = await this.findOrThrow(id);
    if (found.status === 'rejected') return found;
    const row = await this.records.transaction(async (tx) => {
      await this.records.lockMember(tx, found.userId, 'exclusive');
      const leave = (await this.records.findById(id, tx))!;
      if (leave.status === 'rejected') return leave;
      if (leave.status !== 'pending') throw conflict(`${ONLY_PENDING_REJECTED}; this one is ${leave.status}`);
      const rejected = await this.records.update(
        id,
        { status: 'rejected', decidedBy: caller.id, decidedAt: this.clock.now(), decisionNote: reason ?? '' },
        tx,
      );
      await this.record(tx, caller.id, 'rejected', leave, rejected);
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
    const manages = decidesLeave(caller);
    if (found.userId !== caller.id && !manages) throw forbidden(OWN_LEAVE_ONLY);
    if (found.status === 'cancelled') return found;
    const row = await this.records.transaction(async (tx) => {
      await this.records.lockMember(tx, found.userId, 'exclusive');
      const leave = (await this.records.findById(id, tx))!;
      if (leave.status === 'cancelled') return leave;
      if (leave.status === 'rejected') throw conflict(ALREADY_DECIDED);
      if (!manages && this.clock.now() >= leave.startsAt) throw conflict(CANCEL_TOO_LATE);
      const cancelled = await this.records.update(id, { status: 'cancelled' }, tx);
      await this.record(tx, caller.id, 'cancelled', leave, cancelled);
      return cancelled;
    });
    if (found.status !== row.status) {
      this.logger.log({ leaveId: id, by: caller.id }, 'Leave cancelled');
      this.publish(row, caller.id, []);
    }
    return row;
  }

  /** Members see their own leave; managers and admins everyone's. */
  list(caller: CurrentMember, query: ListLeavesQuery): Promise<{ rows: LeaveListRow[]; total: number }> {
    const month = query.month ? monthBounds(query.month) : undefined;
    const from = [month?.first, query.date].filter(Boolean).sort().pop();
    const to = [month?.last, query.date].filter(Boolean).sort().shift();
    return this.records.list({
      userId: decidesLeave(caller) ? query.userId : caller.id,
      status: query.status,
      from,
      to,
      limit: query.limit,
      offset: (query.page - 1) * query.limit,
    });
  }

  fullNameOf(userId: string): Promise<string | null> {
    return this.records.fullNameOf(userId);
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
    const covered = marks.filter((mark) => {
      if (mark.status !== 'present') return false;
      const meal = mealTimes.find((m) => m.name === mark.mealType);
      if (!meal) return false;
      const start = this.span(mark.date, meal).start;
      return start >= leave.startsAt && start < leave.endsAt;
    });
    const eaten = covered.find((mark) => mark.source !== 'member');
    if (eaten) throw conflict(`${LEAVE_EATEN} (${eaten.mealType} on ${eaten.date})`);
    return this.attendance.setAbsentForLeave(
      covered.map((mark) => mark.id),
      actorId,
      tx,
    );
  }

  /** After commit: the marks the decision changed, and the decision itself (LEAVE_DECIDED). */
  private announce(row: LeaveRow, turnedAbsent: WrittenMark[], actorId: string): void {
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
    this.publish(row, actorId, turnedAbsent);
  }

  private publish(row: LeaveRow, actorId: string, turnedAbsent: WrittenMark[]): void {
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
    this.events.publish('leave.decided', event);
  }

  private span(date: string, meal: MealTime) {
    return mealSpan(date, meal, this.config.messTimezone);
  }

  private async findOrThrow(id: string): Promise<LeaveRow> {
    const row = await this.records.findById(id);
    if (!row) throw notFound(LEAVE_NOT_FOUND);
    return row;
  }
}
