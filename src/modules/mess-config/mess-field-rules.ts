import type { FieldError } from '../../common/errors/api-error';

/**
 * The rules across a mess's fields that a DTO cannot say: a daily rate with the daily method, no repeated band,
 * start month, meal name, category or extra. They read the body as sent (the field rules beside them may have
 * refused some of it), so each value's shape is checked here and a field (or its parent) in `refused` is left alone:
 * one 400 names every bad field once. `partial` (a PATCH) leaves out the rule that needs the whole configuration.
 */
export function messFieldProblems(
  body: Record<string, unknown>,
  refused: ReadonlySet<string> = new Set(),
  partial = false,
): FieldError[] {
  const ok = (path: string) => ![...refused].some((f) => f === path || path.startsWith(`${f}.`));
  const details: FieldError[] = [];
  if (
    !partial &&
    ok('chargeMethod') &&
    ok('dailyRate') &&
    body.chargeMethod === 'daily' &&
    (body.dailyRate === undefined || body.dailyRate === null)
  ) {
    details.push({ field: 'dailyRate', message: "dailyRate is required when chargeMethod is 'daily'" });
  }
  repeats(body, 'rebateBands', 'minDays', ok, (key, at) =>
    details.push({ field: at, message: `minDays ${key} is repeated` }),
  );
  repeats(body, 'termStartMonths', undefined, ok, (key, at) =>
    details.push({ field: at, message: `month ${key} is repeated` }),
  );
  listOf(body.mealTimes, 'mealTimes', ok).forEach(([meal, at]) => {
    const { startTime, endTime } = (meal ?? {}) as Record<string, unknown>;
    if (
      ok(`${at}.startTime`) &&
      ok(`${at}.endTime`) &&
      typeof startTime === 'string' &&
      typeof endTime === 'string' &&
      startTime >= endTime
    ) {
      details.push({ field: `${at}.endTime`, message: 'endTime must be after startTime' });
    }
  });
  repeats(body, 'mealTimes', 'name', ok, (name, at) =>
    details.push({ field: at, message: `meal name "${name}" is repeated` }),
  );
  repeats(body, 'expenseCategories', undefined, ok, (category, at) =>
    details.push({ field: at, message: `category "${category}" is repeated` }),
  );
  repeats(body, 'extraItems', 'name', ok, (name, at) =>
    details.push({ field: at, message: `item "${name}" is repeated` }),
  );
  return details;
}

/** The entries of `value` with their paths (`mealTimes.0`), when it is a list its rules did not refuse. */
function listOf(value: unknown, field: string, ok: (path: string) => boolean): [unknown, string][] {
  if (!Array.isArray(value) || !ok(field)) return [];
  return value.map((item, i): [unknown, string] => [item, `${field}.${i}`]).filter(([, at]) => ok(at));
}

/**
 * Each entry of `body[field]` (or its `key`) that repeats an earlier one: text compared trimmed and ignoring case,
 * numbers as they are; `report` gets the repeated value and its path.
 */
function repeats(
  body: Record<string, unknown>,
  field: string,
  key: string | undefined,
  ok: (path: string) => boolean,
  report: (value: string | number, at: string) => void,
): void {
  const seen = new Set<string | number>();
  for (const [item, at] of listOf(body[field], field, ok)) {
    const path = key ? `${at}.${key}` : at;
    let value = key ? ((item ?? {}) as Record<string, unknown>)[key] : item;
    if (typeof value === 'string') value = value.trim();
    if (!ok(path) || (typeof value !== 'string' && typeof value !== 'number')) continue;
    const compared = typeof value === 'string' ? value.toLowerCase() : value;
    if (seen.has(compared)) report(value, path);
    seen.add(compared);
  }
}
