import { badRequest } from '../../common/errors/api-error';
import { addDays, isoWeekDays, isoWeekOf, isoWeeksInYear } from '../../common/time/dates';

export interface MenuPeriodQuery {
  date?: string;
  week?: number;
  year?: number;
  from?: string;
  to?: string;
}

/** The longest range `from`–`to` covers, both days included: a month of menus at most. */
export const MENU_RANGE_MAX_DAYS = 31;

/** Inclusive `YYYY-MM-DD` bounds. */
export interface MenuPeriod {
  first: string;
  last: string;
}

const invalid = (field: string, message: string) => badRequest('Validation failed', [{ field, message }]);

/**
 * The days a menu query covers: one `date`; or ISO-8601 `week` of `year` (Monday to Sunday), the year defaulting
 * to the ISO week-numbering year of `today` so that `week` alone means a week of "this year" even in the days
 * around New Year; or `from` to `to` (both included, at most 31 days); or, with none, the current week. `today` is
 * the mess's local date.
 */
export function resolveMenuPeriod(query: MenuPeriodQuery, today: string): MenuPeriod {
  if (query.from !== undefined || query.to !== undefined) return rangePeriod(query);
  if (query.date !== undefined) {
    if (query.week !== undefined || query.year !== undefined) {
      throw invalid('date', 'send either date or week (with an optional year), not both');
    }
    return { first: query.date, last: query.date };
  }
  const current = isoWeekOf(today);
  if (query.week === undefined) {
    if (query.year !== undefined) throw invalid('year', 'year needs week');
    return weekPeriod(current.year, current.week);
  }
  const year = query.year ?? current.year;
  const weeks = isoWeeksInYear(year);
  if (query.week > weeks) throw invalid('week', `week must be from 1 to ${weeks} in ${year}`);
  return weekPeriod(year, query.week);
}

/** `from`–`to` alone: each bad field named, all of them in one answer. */
function rangePeriod(query: MenuPeriodQuery): MenuPeriod {
  const { from, to } = query;
  const details: { field: string; message: string }[] = [];
  for (const field of ['date', 'week', 'year'] as const) {
    if (query[field] !== undefined)
      details.push({ field, message: `send either from and to, or ${field}, not both` });
  }
  if (from === undefined) details.push({ field: 'from', message: 'from is needed with to' });
  if (to === undefined) details.push({ field: 'to', message: 'to is needed with from' });
  if (from !== undefined && to !== undefined) {
    if (to < from) details.push({ field: 'to', message: `to must be on or after from (${from})` });
    else if (to > addDays(from, MENU_RANGE_MAX_DAYS - 1)) {
      details.push({
        field: 'to',
        message: `from to to covers at most ${MENU_RANGE_MAX_DAYS} days: to must be on or before ${addDays(from, MENU_RANGE_MAX_DAYS - 1)}`,
      });
    }
  }
  if (details.length) throw badRequest('Validation failed', details);
  return { first: from!, last: to! };
}

function weekPeriod(year: number, week: number): MenuPeriod {
  const days = isoWeekDays(year, week);
  return { first: days[0], last: days[6] };
}

/**
 * Orders menus by date, then by the time of day their meal is served (the configured start times, ties in the
 * configured order). Meal types no longer configured come last, by name.
 */
export function sortMenus<T>(
  items: T[],
  mealTimes: { name: string; startTime: string }[],
  menuOf: (item: T) => { date: string; mealType: string },
): T[] {
  const rank = new Map(
    mealTimes
      .map((meal, position) => ({ meal, position }))
      .sort((a, b) => a.meal.startTime.localeCompare(b.meal.startTime) || a.position - b.position)
      .map(({ meal }, i) => [meal.name, i]),
  );
  const rankOf = (mealType: string) => rank.get(mealType) ?? Number.MAX_SAFE_INTEGER;
  return [...items].sort((x, y) => {
    const a = menuOf(x);
    const b = menuOf(y);
    return (
      a.date.localeCompare(b.date) ||
      rankOf(a.mealType) - rankOf(b.mealType) ||
      (a.mealType < b.mealType ? -1 : a.mealType > b.mealType ? 1 : 0)
    );
  });
}
