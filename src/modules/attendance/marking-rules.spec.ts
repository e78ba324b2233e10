import { ApiError } from '../../common/errors/api-error';
import type { SlotMark } from './attendance.repository';
import { MARKING_CLOSED, MEMBER_NOT_A_DINER, NOT_A_DINER } from './attendance.errors';
import {
  assertInsideMarkingWindow,
  assertMarkableMember,
  assertMayBePresent,
  assertMayMarkFor,
  blockedByMessMark,
  bulkEntryErrors,
  type Caller,
  changesStatus,
  inLockOrder,
  isClosedMonthRefusal,
  isRepeatOf,
  markingWindowOf,
  markSource,
  marksForOthers,
  MONTH_CLOSED_SQLSTATE,
  otherStatus,
  writerOf,
} from './marking-rules';

const student: Caller = { id: 'student-1', role: 'student' };
const treasurer: Caller = { id: 'treasurer-1', role: 'treasurer' };
const manager: Caller = { id: 'manager-1', role: 'manager' };
const admin: Caller = { id: 'admin-1', role: 'admin' };

const approved = { status: 'approved', dines: true };
const approvedNonDiner = { status: 'approved', dines: false };

/** The status and error of what `fn` threw (undefined when it did not throw). */
function refusal(fn: () => unknown): { status: number; error: string; details?: unknown } | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    const api = error as ApiError;
    const body = api.getResponse() as { error: string; details?: unknown };
    return { status: api.getStatus(), error: body.error, ...(body.details ? { details: body.details } : {}) };
  }
  return undefined;
}

describe('who may mark whom', () => {
  it('lets managers and admins mark for others, and nobody else', () => {
    expect(marksForOthers(manager)).toBe(true);
    expect(marksForOthers(admin)).toBe(true);
    expect(marksForOthers(student)).toBe(false);
    expect(marksForOthers(treasurer)).toBe(false);
  });

  it('lets everyone mark for themself', () => {
    for (const caller of [student, treasurer, manager, admin])
      expect(refusal(() => assertMayMarkFor(caller, caller.id))).toBeUndefined();
  });

  it('refuses a student or a treasurer naming another member (403)', () => {
    for (const caller of [student, treasurer]) {
      expect(refusal(() => assertMayMarkFor(caller, 'someone-else'))).toEqual({
        status: 403,
        error: 'You can only mark your own attendance',
      });
    }
    expect(refusal(() => assertMayMarkFor(manager, 'someone-else'))).toBeUndefined();
  });

  it('refuses an unknown member (404) and one not approved (400, naming the status)', () => {
    expect(refusal(() => assertMarkableMember(undefined, 'absent'))).toEqual({
      status: 404,
      error: 'User not found',
    });
    expect(refusal(() => assertMarkableMember({ status: 'pending', dines: true }, 'absent'))).toEqual({
      status: 400,
      error: 'Validation failed',
      details: [{ field: 'userId', message: 'the member is pending, not approved' }],
    });
    expect(refusal(() => assertMarkableMember(approved, 'present'))).toBeUndefined();
  });

  it('refuses to mark present a member who does not dine, but lets them be marked absent', () => {
    expect(refusal(() => assertMarkableMember(approvedNonDiner, 'present'))).toEqual({
      status: 409,
      error: MEMBER_NOT_A_DINER,
    });
    expect(refusal(() => assertMarkableMember(approvedNonDiner, 'absent'))).toBeUndefined();
    expect(refusal(() => assertMayBePresent(approvedNonDiner, 'present'))?.error).toBe(MEMBER_NOT_A_DINER);
    expect(refusal(() => assertMayBePresent(undefined, 'present'))).toBeUndefined();
  });
});

describe('the writer of a mark', () => {
  it('is the mess for a mark of another member, whatever the caller’s own standing', () => {
    expect(writerOf(manager, 'someone-else', undefined)).toBe('mess');
    expect(writerOf(manager, 'someone-else', approvedNonDiner)).toBe('mess');
  });

  it('is the mess for a manager’s or an admin’s own mark, and the member for anyone else’s', () => {
    expect(writerOf(manager, manager.id, approved)).toBe('mess');
    expect(writerOf(admin, admin.id, approved)).toBe('mess');
    expect(writerOf(student, student.id, approved)).toBe('member');
    expect(writerOf(treasurer, treasurer.id, approved)).toBe('member');
  });

  it('refuses anyone who does not dine marking their own meals (409), managers too', () => {
    for (const caller of [student, manager])
      expect(refusal(() => writerOf(caller, caller.id, approvedNonDiner))).toEqual({
        status: 409,
        error: NOT_A_DINER,
      });
  });

  it('has the member as its source for their own mark, the mess for anyone else’s', () => {
    expect(markSource(student.id, student.id)).toBe('member');
    expect(markSource(manager.id, student.id)).toBe('mess');
  });
});

describe('the marking window', () => {
  const lunch = { name: 'Lunch', startTime: '12:00', endTime: '14:00' };
  const window = { daysAhead: 2, closesMinutesAfterEnd: 30 };
  const zone = 'Asia/Kolkata'; // UTC+05:30

  it('opens at local midnight `daysAhead` days before and closes `closesMinutesAfterEnd` after the meal', () => {
    expect(markingWindowOf('2025-03-14', lunch, window, zone)).toEqual({
      opens: new Date('2025-03-11T18:30:00Z'),
      closes: new Date('2025-03-14T09:00:00Z'),
    });
  });

  it('refuses a mark before it opens or after it closes (409), and takes its edges as inside', () => {
    const at = (iso: string) =>
      refusal(() => assertInsideMarkingWindow(new Date(iso), '2025-03-14', lunch, window, zone));
    expect(at('2025-03-11T18:29:59Z')).toEqual({ status: 409, error: MARKING_CLOSED });
    expect(at('2025-03-11T18:30:00Z')).toBeUndefined();
    expect(at('2025-03-14T09:00:00Z')).toBeUndefined();
    expect(at('2025-03-14T09:00:01Z')).toEqual({ status: 409, error: MARKING_CLOSED });
  });

  it('lets anything through without a window, or for a meal no longer configured', () => {
    const late = new Date('2026-01-01T00:00:00Z');
    expect(
      refusal(() => assertInsideMarkingWindow(late, '2025-03-14', lunch, undefined, zone)),
    ).toBeUndefined();
    expect(
      refusal(() => assertInsideMarkingWindow(late, '2025-03-14', undefined, window, zone)),
    ).toBeUndefined();
  });
});

describe('the kitchen’s record', () => {
  it('blocks a write that changed nothing only when the stored mark holds another status and is not the member’s', () => {
    expect(blockedByMessMark({ status: 'present', source: 'mess' }, 'absent')).toBe(true);
    expect(blockedByMessMark({ status: 'present', source: 'counter' }, 'absent')).toBe(true);
    expect(blockedByMessMark({ status: 'present', source: 'mess' }, 'present')).toBe(false);
    expect(blockedByMessMark({ status: 'present', source: 'member' }, 'absent')).toBe(false);
  });
});

describe('written marks', () => {
  it('are news when new or of a changed status, not when taken over unchanged', () => {
    expect(changesStatus({ created: true, status: 'present', previousStatus: null })).toBe(true);
    expect(changesStatus({ created: false, status: 'present', previousStatus: 'absent' })).toBe(true);
    expect(changesStatus({ created: false, status: 'present', previousStatus: 'present' })).toBe(false);
    // Never written since made (previousStatus null): the write changed its status.
    expect(changesStatus({ created: false, status: 'absent', previousStatus: null })).toBe(true);
  });

  it('had the other status when changed', () => {
    expect(otherStatus('present')).toBe('absent');
    expect(otherStatus('absent')).toBe('present');
  });
});

describe('repeats into a closed month', () => {
  const closed = Object.assign(new Error('month closed'), { code: MONTH_CLOSED_SQLSTATE });

  it('recognises the month-close trigger’s refusal, also wrapped, and nothing else', () => {
    expect(isClosedMonthRefusal(closed)).toBe(true);
    expect(isClosedMonthRefusal(new Error('query failed', { cause: closed }))).toBe(true);
    expect(isClosedMonthRefusal(Object.assign(new Error('unique'), { code: '23505' }))).toBe(false);
    expect(isClosedMonthRefusal(new Error('no code'))).toBe(false);
  });

  it('is a repeat when the stored marks hold every given status', () => {
    const stored = [
      { userId: 'a', status: 'present' as const },
      { userId: 'b', status: 'absent' as const },
    ];
    expect(isRepeatOf([{ userId: 'b', status: 'absent' }], stored)).toBe(true);
    expect(isRepeatOf(stored, stored)).toBe(true);
    expect(isRepeatOf([{ userId: 'a', status: 'absent' }], stored)).toBe(false);
    expect(isRepeatOf([{ userId: 'c', status: 'present' }], stored)).toBe(false);
  });
});

describe('bulk entries', () => {
  const standings = new Map([
    ['a', approved],
    ['b', approvedNonDiner],
    ['p', { status: 'pending', dines: true }],
  ]);

  it('pass when every member is approved and marked once', () => {
    const marks = [
      { userId: 'a', status: 'present' as const },
      { userId: 'b', status: 'absent' as const },
    ];
    const { errors, firstIndex } = bulkEntryErrors(marks, standings);
    expect(errors).toEqual([]);
    expect([...firstIndex]).toEqual([
      ['a', 0],
      ['b', 1],
    ]);
  });

  it('fail with one error per bad entry, in the request’s order', () => {
    const { errors, firstIndex } = bulkEntryErrors(
      [
        { userId: 'a', status: 'present' },
        { userId: 'x', status: 'present' },
        { userId: 'a', status: 'absent' },
        { userId: 'p', status: 'absent' },
        { userId: 'b', status: 'present' },
      ],
      standings,
    );
    expect(errors).toEqual([
      { field: 'marks.1.userId', message: 'no member has this id' },
      { field: 'marks.2.userId', message: 'this member is already marked at marks.0' },
      { field: 'marks.3.userId', message: 'the member is pending, not approved' },
      { field: 'marks.4.userId', message: 'the member does not dine at the mess' },
    ]);
    expect(firstIndex.get('a')).toBe(0);
  });

  it('are written in one lock order, whatever the request’s', () => {
    const mark = (userId: string): SlotMark => ({
      userId,
      date: '2025-03-14',
      mealType: 'Lunch',
      status: 'present',
      source: 'mess',
      markedBy: manager.id,
      markedAt: new Date(0),
    });
    const given = [mark('c'), mark('a'), mark('b')];
    expect(inLockOrder(given).map((m) => m.userId)).toEqual(['a', 'b', 'c']);
    expect(given.map((m) => m.userId)).toEqual(['c', 'a', 'b']);
  });
});
