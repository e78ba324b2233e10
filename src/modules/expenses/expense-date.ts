import type { FieldError } from '../../common/errors/api-error';
import { addDays, localParts, monthBounds, monthOf } from '../../common/time/dates';

/**
 * The latest date an expense may carry: the last day of next month in the mess's time zone. An advance paid now for
 * next month's gas or rent is normal; a date beyond that is a typo (2062 for 2026) that would sit in a month nobody
 * bills, inflate its trend and block nothing.
 */
export function latestExpenseDate(now: Date, timeZone: string): string {
  const thisMonth = monthOf(localParts(now, timeZone).date);
  const nextMonth = monthOf(addDays(monthBounds(thisMonth).last, 1));
  return monthBounds(nextMonth).last;
}

/** The 400 detail for an expense dated after `latestExpenseDate`, or undefined when the date is within reach. */
export function expenseDateProblem(date: string, now: Date, timeZone: string): FieldError | undefined {
  const latest = latestExpenseDate(now, timeZone);
  if (date <= latest) return undefined;
  return { field: 'date', message: `date must not be after ${latest}, the end of next month` };
}
