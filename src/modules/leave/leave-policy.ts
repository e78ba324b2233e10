import { can } from '../../common/auth/permissions';
import type { Role, UserStatus } from '../../common/auth/roles';
import { badRequest, conflict, forbidden, notFound } from '../../common/errors/api-error';
import { mealSpan, monthBounds, monthOf, monthsBetween } from '../../common/time/dates';
import type { LeavePolicy, MealTime } from '../mess-config';
import { leaveDates, overCap } from './leave-days';
import {
  ALREADY_DECIDED,
  CANCEL_TOO_LATE,
  LEAVE_EATEN,
  ONLY_PENDING_APPROVED,
  ONLY_PENDING_REJECTED,
  OWN_LEAVE_ONLY,
} from './leave.errors';
import type { LeaveStatus } from '../leave-calendar';

/*
 * The rules of leave, free of I/O so each is tested on its own (leave-policy.spec.ts): who may ask for whom, what a
 * request may span under the mess's leave policy, when it is approved at once, who may cancel until when, and which
 * marks an approval turns absent. A broken rule throws the API error the member sees.
 */

/** The longest leave one request may ask for. */
export const MAX_LEAVE_DAYS = 366;

type Caller = { id: string; role: Role };

/** Managers and admins decide leave, see everyone's, and ask for leave on a member's behalf. */
export const decidesLeave = (caller: { role: Role }): boolean => can(caller, 'leave.decide');

/** Whether the request is for another member than the caller; only those who decide leave may ask for another. */
export function asksForAnother(caller: Caller, userId: string): boolean {
  if (userId === caller.id) return false;
  if (!decidesLeave(caller)) throw forbidden(OWN_LEAVE_ONLY);
  return true;
}

/** Leave is asked for an approved member only (`status` undefined: no such member). */
export function assertMayTakeLeave(status: UserStatus | undefined): void {
  if (!status) throw notFound('User not found');
  if (status !== 'approved') {
    throw badRequest('Validation failed', [
      { field: 'userId', message: `the member is ${status}, not approved` },
    ]);
  }
}

/** The day's first and last meals by start time: a request's default first and last covered meals. */
export function firstAndLastMeals(mealTimes: MealTime[]): { first: MealTime; last: MealTime } {
  const byStart = [...mealTimes].sort((a, b) => (a.startTime < b.startTime ? -1 : 1));
  return { first: byStart[0], last: byStart[byStart.length - 1] };
}

export interface LeaveRequest {
  startDate: string;
  endDate: string;
  startMeal: MealTime;
  endMeal: MealTime;
}

export interface CheckedRequest {
  /** The first covered meal's start and the last one's end. */
  startsAt: Date;
  endsAt: Date;
  days: number;
  /** Recorded for another member, or the policy asks for no approval. */
  approveNow: boolean;
}

/**
 * A request against the policy, in this order: its dates and meals in order, at least `minDays` and at most
 * MAX_LEAVE_DAYS days, and (for a member's own request) asked `applyBeforeHours` before its first meal.
 */
export function checkRequest(
  request: LeaveRequest,
  policy: LeavePolicy,
  context: { forAnother: boolean; now: Date; timeZone: string },
): CheckedRequest {
  const { startDate, endDate, startMeal, endMeal } = request;
  if (endDate < startDate) {
    throw badRequest('Validation failed', [
      { field: 'endDate', message: 'endDate must not be before startDate' },
    ]);
  }
  const startsAt = mealSpan(startDate, startMeal, context.timeZone).start;
  const endsAt = mealSpan(endDate, endMeal, context.timeZone).end;
  if (endsAt <= startsAt) {
    throw badRequest('Validation failed', [
      {
        field: 'endMealType',
        message: `the leave ends (${endMeal.name}) before it starts (${startMeal.name})`,
      },
    ]);
  }
  const days = leaveDates(startDate, endDate).length;
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
  if (
    !context.forAnother &&
    startsAt.getTime() - context.now.getTime() < policy.applyBeforeHours * 3_600_000
  ) {
    throw badRequest('Validation failed', [
      {
        field: 'startDate',
        message: `ask at least ${policy.applyBeforeHours} hours before the first meal (${startMeal.name} on ${startDate}); a manager can record a late leave`,
      },
    ]);
  }
  return { startsAt, endsAt, days, approveNow: context.forAnother || !policy.requiresApproval };
}

/** The months a leave touches: none of them may be closed. */
export function monthsOf(leave: { startDate: string; endDate: string }): string[] {
  return monthsBetween(monthOf(leave.startDate), monthOf(leave.endDate));
}

/** The dates whose leave counts against the monthly cap of this request; undefined when the policy has no cap. */
export function capWindow(
  policy: LeavePolicy,
  leave: { startDate: string; endDate: string },
): { from: string; to: string } | undefined {
  if (policy.maxDaysPerMonth <= 0) return undefined;
  return { from: monthBounds(monthOf(leave.startDate)).first, to: monthBounds(monthOf(leave.endDate)).last };
}

/** The member's leave days in a month, with this request's, stay within the policy's `maxDaysPerMonth`. */
export function checkMonthlyCap(
  policy: LeavePolicy,
  leave: { startDate: string; endDate: string },
  existing: { startDate: string; endDate: string }[],
): void {
  const over = overCap(
    policy.maxDaysPerMonth,
    { from: leave.startDate, to: leave.endDate },
    existing.map((other) => ({ from: other.startDate, to: other.endDate })),
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

/** Only a pending leave is approved or rejected (one already so is answered as it is, before this). */
export function assertPending(leave: { status: LeaveStatus }, decision: 'approved' | 'rejected'): void {
  if (leave.status === 'pending') return;
  const rule = decision === 'approved' ? ONLY_PENDING_APPROVED : ONLY_PENDING_REJECTED;
  throw conflict(`${rule}; this one is ${leave.status}`);
}

/** A member touches only their own leave; those who decide leave anyone's. Returns whether the caller decides. */
export function mayTouch(caller: Caller, leave: { userId: string }): boolean {
  const manages = decidesLeave(caller);
  if (leave.userId !== caller.id && !manages) throw forbidden(OWN_LEAVE_ONLY);
  return manages;
}

/** A rejected leave stays rejected; a member cancels only before the first meal starts, a manager any time. */
export function assertCancellable(
  leave: { status: LeaveStatus; startsAt: Date },
  context: { manages: boolean; now: Date },
): void {
  if (leave.status === 'rejected') throw conflict(ALREADY_DECIDED);
  if (!context.manages && context.now >= leave.startsAt) throw conflict(CANCEL_TOO_LATE);
}

/**
 * The marks an approval turns absent: the member's present marks for meals starting inside the leave. A covered
 * meal the mess recorded the member eating (a scan, a manager's mark: any source but the member) refuses it.
 */
export function marksToTurnAbsent<
  Mark extends { date: string; mealType: string; status: string; source: string },
>(leave: { startsAt: Date; endsAt: Date }, marks: Mark[], mealTimes: MealTime[], timeZone: string): Mark[] {
  const covered = marks.filter((mark) => {
    if (mark.status !== 'present') return false;
    const meal = mealTimes.find((m) => m.name === mark.mealType);
    if (!meal) return false;
    const start = mealSpan(mark.date, meal, timeZone).start;
    return start >= leave.startsAt && start < leave.endsAt;
  });
  const eaten = covered.find((mark) => mark.source !== 'member');
  if (eaten) throw conflict(`${LEAVE_EATEN} (${eaten.mealType} on ${eaten.date})`);
  return covered;
}

/**
 * Whose leave a list shows (the caller's own unless they decide leave) and the dates it spans: a month, a day, or
 * the day within the month (both given: their overlap).
 */
export function listScope(
  caller: Caller,
  query: { userId?: string; month?: string; date?: string },
): { userId?: string; from?: string; to?: string } {
  const month = query.month ? monthBounds(query.month) : undefined;
  const from = [month?.first, query.date].filter(Boolean).sort().pop();
  const to = [month?.last, query.date].filter(Boolean).sort().shift();
  return { userId: decidesLeave(caller) ? query.userId : caller.id, from, to };
}
