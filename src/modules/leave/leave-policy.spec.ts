import { ApiError } from '../../common/errors/api-error';
import type { LeavePolicy, MealTime } from '../mess-config';
import {
  ALREADY_DECIDED,
  CANCEL_TOO_LATE,
  LEAVE_EATEN,
  ONLY_PENDING_APPROVED,
  ONLY_PENDING_REJECTED,
  OWN_LEAVE_ONLY,
} from './leave.errors';
import {
  asksForAnother,
  assertCancellable,
  assertMayTakeLeave,
  assertPending,
  capWindow,
  checkMonthlyCap,
  checkRequest,
  firstAndLastMeals,
  listScope,
  MAX_LEAVE_DAYS,
  marksToTurnAbsent,
  mayTouch,
  monthsOf,
} from './leave-policy';

const UTC = 'UTC';
const breakfast: MealTime = { name: 'Breakfast', startTime: '08:00', endTime: '09:00' };
const lunch: MealTime = { name: 'Lunch', startTime: '12:30', endTime: '14:00' };
const dinner: MealTime = { name: 'Dinner', startTime: '19:30', endTime: '21:00' };
const policy: LeavePolicy = { minDays: 1, applyBeforeHours: 12, maxDaysPerMonth: 0, requiresApproval: true };
const student = { id: 's', role: 'student' as const };
const manager = { id: 'm', role: 'manager' as const };

/** The error `run` throws, as status and body (undefined when it throws nothing). */
function refusal(run: () => unknown): { status: number; error: string; details?: unknown } | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return {
      status: error.getStatus(),
      error: error.error,
      ...(error.details ? { details: error.details } : {}),
    };
  }
}

const fieldError = (field: string, message: string | RegExp) => ({
  status: 400,
  error: 'Validation failed',
  details: [{ field, message: typeof message === 'string' ? message : expect.stringMatching(message) }],
});

describe('leave policy', () => {
  describe('who asks for whom', () => {
    it('lets anyone ask for themself', () => {
      expect(asksForAnother(student, 's')).toBe(false);
      expect(asksForAnother(manager, 'm')).toBe(false);
    });

    it('lets only those who decide leave ask for another member', () => {
      expect(asksForAnother(manager, 's')).toBe(true);
      expect(refusal(() => asksForAnother(student, 'other'))).toEqual({ status: 403, error: OWN_LEAVE_ONLY });
    });

    it('asks for an approved member only', () => {
      expect(refusal(() => assertMayTakeLeave('approved'))).toBeUndefined();
      expect(refusal(() => assertMayTakeLeave(undefined))).toEqual({ status: 404, error: 'User not found' });
      expect(refusal(() => assertMayTakeLeave('pending'))).toEqual(
        fieldError('userId', 'the member is pending, not approved'),
      );
    });
  });

  it('defaults to the first and last meals of the day by start time', () => {
    expect(firstAndLastMeals([dinner, breakfast, lunch])).toEqual({ first: breakfast, last: dinner });
  });

  describe('a request', () => {
    const now = new Date('2025-03-10T00:00:00Z');
    const ask = (
      request: Partial<Parameters<typeof checkRequest>[0]>,
      overrides: Partial<LeavePolicy> = {},
      forAnother = false,
    ) =>
      checkRequest(
        { startDate: '2025-03-12', endDate: '2025-03-13', startMeal: breakfast, endMeal: dinner, ...request },
        { ...policy, ...overrides },
        { forAnother, now, timeZone: UTC },
      );

    it('spans from the first meal’s start to the last meal’s end, counting calendar days', () => {
      expect(ask({})).toEqual({
        startsAt: new Date('2025-03-12T08:00:00Z'),
        endsAt: new Date('2025-03-13T21:00:00Z'),
        days: 2,
        approveNow: false,
      });
    });

    it('refuses an end date before the start date', () => {
      expect(refusal(() => ask({ endDate: '2025-03-11' }))).toEqual(
        fieldError('endDate', 'endDate must not be before startDate'),
      );
    });

    it('refuses a one-day leave whose last meal comes before its first', () => {
      expect(refusal(() => ask({ endDate: '2025-03-12', startMeal: dinner, endMeal: breakfast }))).toEqual(
        fieldError('endMealType', 'the leave ends (Breakfast) before it starts (Dinner)'),
      );
    });

    it('holds to minDays and to MAX_LEAVE_DAYS', () => {
      expect(refusal(() => ask({}, { minDays: 3 }))).toEqual(
        fieldError('endDate', 'a leave is at least 3 day(s); this one is 2'),
      );
      expect(refusal(() => ask({ endDate: '2026-03-13' }))).toEqual(
        fieldError('endDate', `a leave is at most ${MAX_LEAVE_DAYS} days; ask for the rest later`),
      );
    });

    it('is asked applyBeforeHours before the first meal, except when recorded for another member', () => {
      const late = () => ask({ startDate: '2025-03-10', startMeal: lunch }, { applyBeforeHours: 13 });
      expect(refusal(late)).toEqual(
        fieldError('startDate', /^ask at least 13 hours before the first meal \(Lunch/),
      );
      expect(
        refusal(() => ask({ startDate: '2025-03-10', startMeal: lunch }, { applyBeforeHours: 12 })),
      ).toBe(undefined);
      expect(ask({ startDate: '2025-03-10' }, { applyBeforeHours: 48 }, true).days).toBe(4);
    });

    it('is approved at once when recorded for another member or when the policy asks for no approval', () => {
      expect(ask({}, {}, true).approveNow).toBe(true);
      expect(ask({}, { requiresApproval: false }).approveNow).toBe(true);
      expect(ask({}, { requiresApproval: true }).approveNow).toBe(false);
    });
  });

  it('names every month a leave touches', () => {
    expect(monthsOf({ startDate: '2025-01-30', endDate: '2025-03-01' })).toEqual([
      '2025-01',
      '2025-02',
      '2025-03',
    ]);
  });

  describe('the monthly cap', () => {
    const capped = { ...policy, maxDaysPerMonth: 3 };

    it('counts the whole months the request touches, and nothing without a cap', () => {
      expect(capWindow(policy, { startDate: '2025-01-30', endDate: '2025-02-02' })).toBeUndefined();
      expect(capWindow(capped, { startDate: '2025-01-30', endDate: '2025-02-02' })).toEqual({
        from: '2025-01-01',
        to: '2025-02-28',
      });
    });

    it('refuses a request that takes a month over the cap with the leave already there', () => {
      const leave = { startDate: '2025-03-20', endDate: '2025-03-21' };
      expect(
        refusal(() => checkMonthlyCap(capped, leave, [{ startDate: '2025-03-01', endDate: '2025-03-01' }])),
      ).toBe(undefined);
      expect(
        refusal(() => checkMonthlyCap(capped, leave, [{ startDate: '2025-03-01', endDate: '2025-03-02' }])),
      ).toEqual(fieldError('endDate', 'leave days in 2025-03 would be 4, over the monthly cap of 3'));
    });
  });

  describe('decisions', () => {
    it('approves or rejects only a pending leave', () => {
      expect(refusal(() => assertPending({ status: 'pending' }, 'approved'))).toBeUndefined();
      expect(refusal(() => assertPending({ status: 'cancelled' }, 'approved'))).toEqual({
        status: 409,
        error: `${ONLY_PENDING_APPROVED}; this one is cancelled`,
      });
      expect(refusal(() => assertPending({ status: 'approved' }, 'rejected'))).toEqual({
        status: 409,
        error: `${ONLY_PENDING_REJECTED}; this one is approved`,
      });
    });

    it('lets a member touch only their own leave, a manager anyone’s', () => {
      expect(mayTouch(student, { userId: 's' })).toBe(false);
      expect(mayTouch(manager, { userId: 's' })).toBe(true);
      expect(refusal(() => mayTouch(student, { userId: 'other' }))).toEqual({
        status: 403,
        error: OWN_LEAVE_ONLY,
      });
    });

    it('cancels a member’s leave only before its first meal, a manager’s any time, a rejected one never', () => {
      const leave = { status: 'approved' as const, startsAt: new Date('2025-03-12T08:00:00Z') };
      const before = new Date('2025-03-12T07:59:59Z');
      const at = new Date('2025-03-12T08:00:00Z');
      expect(refusal(() => assertCancellable(leave, { manages: false, now: before }))).toBeUndefined();
      expect(refusal(() => assertCancellable(leave, { manages: false, now: at }))).toEqual({
        status: 409,
        error: CANCEL_TOO_LATE,
      });
      expect(refusal(() => assertCancellable(leave, { manages: true, now: at }))).toBeUndefined();
      expect(
        refusal(() => assertCancellable({ ...leave, status: 'rejected' }, { manages: true, now: before })),
      ).toEqual({ status: 409, error: ALREADY_DECIDED });
    });
  });

  describe('the marks an approval turns absent', () => {
    const leave = { startsAt: new Date('2025-03-12T12:30:00Z'), endsAt: new Date('2025-03-13T09:00:00Z') };
    const mark = (date: string, mealType: string, status = 'present', source = 'member') => ({
      date,
      mealType,
      status,
      source,
    });

    it('takes the member’s present marks of meals starting inside the leave', () => {
      const marks = [
        mark('2025-03-12', 'Breakfast'),
        mark('2025-03-12', 'Lunch'),
        mark('2025-03-12', 'Dinner', 'absent'),
        mark('2025-03-13', 'Breakfast'),
        mark('2025-03-13', 'Lunch'),
        mark('2025-03-13', 'Brunch'),
      ];
      expect(marksToTurnAbsent(leave, marks, [breakfast, lunch, dinner], UTC)).toEqual([marks[1], marks[3]]);
    });

    it('refuses when the mess recorded a covered meal eaten', () => {
      const marks = [mark('2025-03-12', 'Lunch'), mark('2025-03-12', 'Dinner', 'present', 'scan')];
      expect(refusal(() => marksToTurnAbsent(leave, marks, [breakfast, lunch, dinner], UTC))).toEqual({
        status: 409,
        error: `${LEAVE_EATEN} (Dinner on 2025-03-12)`,
      });
    });
  });

  describe('a list', () => {
    it('shows a member their own leave whatever they ask, a manager whom they ask for', () => {
      expect(listScope(student, { userId: 'other' }).userId).toBe('s');
      expect(listScope(manager, { userId: 'other' }).userId).toBe('other');
      expect(listScope(manager, {}).userId).toBeUndefined();
    });

    it('spans the month, the day, or the day within the month', () => {
      expect(listScope(student, { month: '2025-02' })).toMatchObject({
        from: '2025-02-01',
        to: '2025-02-28',
      });
      expect(listScope(student, { date: '2025-02-10' })).toMatchObject({
        from: '2025-02-10',
        to: '2025-02-10',
      });
      expect(listScope(student, { month: '2025-02', date: '2025-02-10' })).toMatchObject({
        from: '2025-02-10',
        to: '2025-02-10',
      });
      expect(listScope(student, {})).toMatchObject({ from: undefined, to: undefined });
    });
  });
});
