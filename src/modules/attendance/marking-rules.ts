import { type CurrentMember } from '../../common/auth/auth.decorators';
import { can } from '../../common/auth/permissions';
import { badRequest, conflict, FieldError, forbidden, notFound } from '../../common/errors/api-error';
import { databaseErrorCode } from '../../common/errors/database-errors';
import { addDays, mealSpan, zonedInstant } from '../../common/time/dates';
import type { MealTime } from '../mess-config';
import type { MarkWriter, SlotMark } from './attendance.repository';
import type { AttendanceStatus, MarkSource } from './attendance.schema';
import { MARKING_CLOSED, MEMBER_NOT_A_DINER, NOT_A_DINER } from './attendance.errors';

// The rules of marking, without I/O: the services read the standings, the settings and the clock, and ask these.

/** Who is marking: only their id and role matter. */
export type Caller = Pick<CurrentMember, 'id' | 'role'>;

/** The mess's markingWindow setting: when members may mark their own meals. */
export interface MarkingWindow {
  daysAhead: number;
  closesMinutesAfterEnd: number;
}

/** A member as marking sees them (UsersService.standingsOf). */
export interface MemberStanding {
  status: string;
  dines: boolean;
}

/** Raised by the month-close trigger (drizzle/0004_month_close_guard.sql) on any write into a closed month. */
export const MONTH_CLOSED_SQLSTATE = 'MS409';

/** Managers and admins mark for other members; everyone marks for themself. */
export const marksForOthers = (caller: Caller): boolean => can(caller, 'attendance.mark-others');

/** A member's own mark is theirs; a mark made for them by anyone else is the mess's (the kitchen's record). */
export const markSource = (callerId: string, userId: string): MarkSource =>
  userId === callerId ? 'member' : 'mess';

// Marks are written only when their status differs and there are two statuses, so a changed mark was the other.
export const otherStatus = (status: AttendanceStatus): AttendanceStatus =>
  status === 'present' ? 'absent' : 'present';

/** A written mark is news when it is new or changed status; one taken over with its status unchanged is not. */
export const changesStatus = (mark: {
  created: boolean;
  status: AttendanceStatus;
  previousStatus: AttendanceStatus | null;
}) => mark.created || mark.previousStatus !== mark.status;

/** Refuses a mark for another member by a caller who may not mark for others (before anything is read). */
export function assertMayMarkFor(caller: Caller, userId: string): void {
  if (userId !== caller.id && !marksForOthers(caller))
    throw forbidden('You can only mark your own attendance');
}

/**
 * Refuses a mark for another member who is unknown (404) or not approved (400), and a present mark for one who does
 * not dine: every present mark is billed.
 */
export function assertMarkableMember(standing: MemberStanding | undefined, status: AttendanceStatus): void {
  if (!standing) throw notFound('User not found');
  if (standing.status !== 'approved') {
    throw badRequest('Validation failed', [
      { field: 'userId', message: `the member is ${standing.status}, not approved` },
    ]);
  }
  assertMayBePresent(standing, status);
}

/** Nobody marks present a member who does not dine: every present mark is billed. */
export function assertMayBePresent(standing: MemberStanding | undefined, status: AttendanceStatus): void {
  if (standing && !standing.dines && status === 'present') throw conflict(MEMBER_NOT_A_DINER);
}

/**
 * Who writes a mark: the mess when it is for another member or the caller marks for others; otherwise the member,
 * who must dine (a non-diner has no meals to mark) and whose own mark keeps to the marking window and may not change
 * the kitchen's record. `callerStanding` is needed only for a mark of the caller's own.
 */
export function writerOf(
  caller: Caller,
  userId: string,
  callerStanding: MemberStanding | undefined,
): MarkWriter {
  if (userId !== caller.id) return 'mess';
  if (callerStanding && !callerStanding.dines) throw conflict(NOT_A_DINER);
  return marksForOthers(caller) ? 'mess' : 'member';
}

/**
 * The marking window of a meal: from midnight `daysAhead` days before its date to `closesMinutesAfterEnd` after it
 * ends, in the mess's time zone.
 */
export function markingWindowOf(
  date: string,
  meal: Pick<MealTime, 'startTime' | 'endTime'>,
  window: MarkingWindow,
  timeZone: string,
): { opens: Date; closes: Date } {
  const opens = zonedInstant(addDays(date, -window.daysAhead), '00:00', timeZone);
  const { end } = mealSpan(date, meal, timeZone);
  return { opens, closes: new Date(end.getTime() + window.closesMinutesAfterEnd * 60_000) };
}

/** Refuses a member's own mark outside the marking window; with no window (or no such meal) any time will do. */
export function assertInsideMarkingWindow(
  now: Date,
  date: string,
  meal: MealTime | undefined,
  window: MarkingWindow | undefined,
  timeZone: string,
): void {
  if (!window || !meal) return;
  const { opens, closes } = markingWindowOf(date, meal, window, timeZone);
  if (now < opens || now > closes) throw conflict(MARKING_CLOSED);
}

/**
 * A member's own mark may not change the kitchen's record: when the write changed nothing and the stored mark holds
 * another status, it is because the mess made it.
 */
export const blockedByMessMark = (
  stored: { status: AttendanceStatus; source: MarkSource },
  wanted: AttendanceStatus,
) => stored.status !== wanted && stored.source !== 'member';

/** Whether a write failed on the month-close trigger, which refuses any write into a closed month. */
export const isClosedMonthRefusal = (error: unknown): boolean =>
  databaseErrorCode(error) === MONTH_CLOSED_SQLSTATE;

/**
 * The month-close trigger fires BEFORE INSERT, so it refuses even an upsert that ON CONFLICT would turn into "nothing
 * to change". A write it refused is a repeat, to be answered as a success that wrote nothing (as a PUT of the same
 * status is), when the slot's stored marks already hold every given status.
 */
export function isRepeatOf(
  marks: { userId: string; status: AttendanceStatus }[],
  stored: { userId: string; status: AttendanceStatus }[],
): boolean {
  const statusOf = new Map(stored.map((row) => [row.userId, row.status]));
  return marks.every((mark) => statusOf.get(mark.userId) === mark.status);
}

/**
 * The entries of a bulk request that fail it, by index: a repeated userId, an unknown or unapproved member, a present
 * mark for a member who does not dine. Also the index of each member's (first) entry, which names their row in a
 * later refusal.
 */
export function bulkEntryErrors(
  marks: { userId: string; status: AttendanceStatus }[],
  standings: Map<string, MemberStanding>,
): { errors: FieldError[]; firstIndex: Map<string, number> } {
  const rowErrors = new Map<number, FieldError>();
  const firstIndex = new Map<string, number>();
  marks.forEach((mark, i) => {
    const first = firstIndex.get(mark.userId);
    if (first === undefined) firstIndex.set(mark.userId, i);
    else {
      rowErrors.set(i, {
        field: `marks.${i}.userId`,
        message: `this member is already marked at marks.${first}`,
      });
    }
  });
  marks.forEach((mark, i) => {
    if (rowErrors.has(i)) return;
    const standing = standings.get(mark.userId);
    if (standing?.status === 'approved') {
      if (standing.dines || mark.status !== 'present') return;
      rowErrors.set(i, { field: `marks.${i}.userId`, message: 'the member does not dine at the mess' });
      return;
    }
    rowErrors.set(i, {
      field: `marks.${i}.userId`,
      message: standing ? `the member is ${standing.status}, not approved` : 'no member has this id',
    });
  });
  const errors = [...rowErrors.entries()].sort(([a], [b]) => a - b).map(([, error]) => error);
  return { errors, firstIndex };
}

/** One lock order for every batch, so two overlapping batches wait for each other instead of deadlocking. */
export const inLockOrder = (marks: SlotMark[]): SlotMark[] =>
  [...marks].sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
