import { addDays, monthOf } from '../../common/time/dates';

/** The calendar days from `from` to `to`, inclusive (a leave day is a day with at least one covered meal). */
export function leaveDates(from: string, to: string): string[] {
  const out: string[] = [];
  for (let date = from; date <= to; date = addDays(date, 1)) out.push(date);
  return out;
}

/** Leave days per calendar month of the span [from, to]. */
export function daysPerMonth(from: string, to: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const date of leaveDates(from, to)) out.set(monthOf(date), (out.get(monthOf(date)) ?? 0) + 1);
  return out;
}

/**
 * The first month where the member's leave days (`existing` spans plus the new one) go over `cap`, with the total;
 * undefined when none does or `cap` is 0 (no cap).
 */
export function overCap(
  cap: number,
  requested: { from: string; to: string },
  existing: { from: string; to: string }[],
): { month: string; days: number } | undefined {
  if (cap === 0) return undefined;
  const months = daysPerMonth(requested.from, requested.to);
  for (const span of existing) {
    for (const [month, days] of daysPerMonth(span.from, span.to)) {
      if (months.has(month)) months.set(month, months.get(month)! + days);
    }
  }
  for (const [month, days] of [...months.entries()].sort()) if (days > cap) return { month, days };
  return undefined;
}
