/** Calendar helpers on `YYYY-MM-DD` and `YYYY-MM` strings; no Date objects cross a time zone by accident. */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MONTH = /^(\d{4})-(\d{2})$/;

/** True for a real calendar date (`2025-02-30` is not). */
export function isCalendarDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1900 || y > 2999 || mo < 1 || mo > 12 || d < 1) return false;
  return d <= daysInMonth(y, mo);
}

export function isMonth(value: string): boolean {
  const m = MONTH.exec(value);
  return !!m && Number(m[1]) >= 1900 && Number(m[1]) <= 2999 && Number(m[2]) >= 1 && Number(m[2]) <= 12;
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** First and last day of a `YYYY-MM` month, inclusive. */
export function monthBounds(month: string): { first: string; last: string } {
  const [y, m] = month.split('-').map(Number);
  return { first: `${month}-01`, last: `${month}-${String(daysInMonth(y, m)).padStart(2, '0')}` };
}

export const monthOf = (date: string): string => date.slice(0, 7);

/** The months from `from` to `to` inclusive, in order. */
export function monthsBetween(from: string, to: string): string[] {
  const out: string[] = [];
  let [y, m] = from.split('-').map(Number);
  const [ty, tm] = to.split('-').map(Number);
  while (y < ty || (y === ty && m <= tm)) {
    out.push(`${y}-${String(m).padStart(2, '0')}`);
    m += 1;
    if (m > 12) {
      m = 1;
      y += 1;
    }
  }
  return out;
}

export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/** Number of ISO-8601 weeks in a year (52 or 53). */
export function isoWeeksInYear(year: number): number {
  // A year has 53 weeks when 28 December falls in week 53.
  return isoWeekOf(`${year}-12-28`).week;
}

/** ISO week-numbering year and week of a date. */
export function isoWeekOf(date: string): { year: number; week: number } {
  const [y, m, d] = date.split('-').map(Number);
  const day = new Date(Date.UTC(y, m - 1, d));
  const weekday = day.getUTCDay() || 7; // Monday 1 … Sunday 7
  day.setUTCDate(day.getUTCDate() + 4 - weekday); // the Thursday of this week decides the year
  const yearStart = new Date(Date.UTC(day.getUTCFullYear(), 0, 1));
  const week = Math.ceil(((day.getTime() - yearStart.getTime()) / 86_400_000 + 1) / 7);
  return { year: day.getUTCFullYear(), week };
}

/** Monday to Sunday of ISO week `week` of `year`. */
export function isoWeekDays(year: number, week: number): string[] {
  const jan4 = new Date(Date.UTC(year, 0, 4));
  const weekday = jan4.getUTCDay() || 7;
  const monday = new Date(jan4.getTime() - (weekday - 1) * 86_400_000 + (week - 1) * 7 * 86_400_000);
  const first = monday.toISOString().slice(0, 10);
  return Array.from({ length: 7 }, (_, i) => addDays(first, i));
}

/**
 * One formatter per time zone, built on first use: constructing an Intl.DateTimeFormat costs ~0.1–0.2 ms and a lot of
 * garbage (it loads the zone's ICU data), formatting with one costs a few µs, and "today" is asked on every menu read.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

const SINCE_WHOLE_MINUTE_OFFSETS = Date.UTC(1980, 0, 1);
/** The last answer per time zone, by minute: most callers ask about "now", many times a minute. */
const lastParts = new Map<string, { minute: number; parts: { date: string; time: string } }>();

/** The calendar date and `HH:MM` time at an instant in a time zone. */
export function localParts(instant: Date, timeZone: string): { date: string; time: string } {
  const ms = instant.getTime();
  // Since 1980 every zone's offset is a whole number of minutes (some older ones had seconds, e.g. Monrovia's
  // −0:44:30 until 1972), so one minute of UTC is one local minute.
  if (!(ms >= SINCE_WHOLE_MINUTE_OFFSETS)) return formatLocalParts(instant, timeZone);
  const minute = Math.floor(ms / 60_000);
  const last = lastParts.get(timeZone);
  if (last && last.minute === minute) return { ...last.parts };
  const parts = formatLocalParts(instant, timeZone);
  lastParts.set(timeZone, { minute, parts });
  return { ...parts };
}

function formatLocalParts(instant: Date, timeZone: string): { date: string; time: string } {
  let year = '';
  let month = '';
  let day = '';
  let hour = '';
  let minute = '';
  for (const part of formatterFor(timeZone).formatToParts(instant)) {
    if (part.type === 'year') year = part.value;
    else if (part.type === 'month') month = part.value;
    else if (part.type === 'day') day = part.value;
    else if (part.type === 'hour') hour = part.value;
    else if (part.type === 'minute') minute = part.value;
  }
  return { date: `${year}-${month}-${day}`, time: `${hour}:${minute}` };
}

/** Instants already worked out, by zone, date and time: every mark and pass asks for its meal's start and end. */
const zoned = new Map<string, number>();
const ZONED_MAX = 4096;

/** The instant at which a local date and `HH:MM` occur in a time zone. */
export function zonedInstant(date: string, time: string, timeZone: string): Date {
  const key = `${timeZone} ${date} ${time}`;
  let instant = zoned.get(key);
  if (instant === undefined) {
    instant = computeZonedInstant(date, time, timeZone);
    if (zoned.size >= ZONED_MAX) zoned.clear();
    zoned.set(key, instant);
  }
  return new Date(instant);
}

function computeZonedInstant(date: string, time: string, timeZone: string): number {
  const [y, mo, d] = date.split('-').map(Number);
  const [h, mi] = time.split(':').map(Number);
  const guess = Date.UTC(y, mo - 1, d, h, mi);
  // Correct the guess by the zone's offset at that moment (twice, for instants near an offset change).
  let instant = guess;
  for (let i = 0; i < 2; i += 1) {
    const local = localParts(new Date(instant), timeZone);
    const [ly, lmo, ld] = local.date.split('-').map(Number);
    const [lh, lmi] = local.time.split(':').map(Number);
    instant += guess - Date.UTC(ly, lmo - 1, ld, lh, lmi);
  }
  return instant;
}

/** When a meal of a local date starts and ends, as instants. */
export function mealSpan(
  date: string,
  meal: { startTime: string; endTime: string },
  timeZone: string,
): { start: Date; end: Date } {
  return {
    start: zonedInstant(date, meal.startTime, timeZone),
    end: zonedInstant(date, meal.endTime, timeZone),
  };
}
