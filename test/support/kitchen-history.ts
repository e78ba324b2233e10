import { mealSpan } from '../../src/common/time/dates';
import { Database } from '../../src/database/database';
import type { SimulatedMess } from './kitchen-simulator';
import { asOwner } from './owner-sql';
import type { TestApp } from './app';

/** The default meal times of messSetup(), by name: a simulated leave's instants are computed from them. */
const MEAL_TIMES: Record<string, { startTime: string; endTime: string }> = {
  Breakfast: { startTime: '07:30', endTime: '09:30' },
  Lunch: { startTime: '12:30', endTime: '14:30' },
  Dinner: { startTime: '19:30', endTime: '21:30' },
};

const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;

async function insertChunks(t: TestApp, head: string, rows: string[]): Promise<void> {
  const database = t.app.get(Database);
  for (let i = 0; i < rows.length; i += 4000) {
    await asOwner(database, `${head} values ${rows.slice(i, i + 4000).join(',')}`);
  }
}

/**
 * Writes a simulated mess's history into a mess of the app, as the owner of the tables (row-level security does not
 * apply; every row names its mess): the members (approved diners whose accounts were made on their first day), their
 * marks, their approved leave (instants from messSetup()'s meal times in `timeZone`) and the menus, published by
 * `publisherId`. What the service would hold after those months, without months of requests.
 */
export async function insertSimulatedMess(
  t: TestApp,
  mess: SimulatedMess,
  options: { messId: string; publisherId: string; timeZone: string; emailPrefix?: string },
): Promise<void> {
  const { messId, timeZone } = options;
  const prefix = options.emailPrefix ?? messId.slice(0, 8);
  await insertChunks(
    t,
    'insert into users (id, mess_id, email, full_name, role, status, dines, created_at)',
    mess.members.map(
      (m, i) =>
        `(${quote(m.id)}, ${quote(messId)}, ${quote(`sim${i}-${prefix}@test.local`)}, ${quote(m.fullName)}, ` +
        `'student', 'approved', true, ${quote(mealSpan(m.since, { startTime: '00:00', endTime: '00:00' }, timeZone).start.toISOString())})`,
    ),
  );
  await insertChunks(
    t,
    'insert into attendance (mess_id, user_id, date, meal_type, status)',
    mess.marks.map(
      (m) =>
        `(${quote(messId)}, ${quote(m.userId)}, ${quote(m.date)}, ${quote(m.mealType)}, ${quote(m.status)})`,
    ),
  );
  await insertChunks(
    t,
    'insert into leaves (mess_id, user_id, start_date, end_date, start_meal_type, end_meal_type, starts_at, ends_at, days, status)',
    mess.leaves.map((l) => {
      const startsAt = mealSpan(l.startDate, MEAL_TIMES[l.startMealType], timeZone).start;
      const endsAt = mealSpan(l.endDate, MEAL_TIMES[l.endMealType], timeZone).end;
      const days = Math.round((Date.parse(l.endDate) - Date.parse(l.startDate)) / 86_400_000) + 1;
      return (
        `(${quote(messId)}, ${quote(l.userId)}, ${quote(l.startDate)}, ${quote(l.endDate)}, ` +
        `${quote(l.startMealType)}, ${quote(l.endMealType)}, ${quote(startsAt.toISOString())}, ` +
        `${quote(endsAt.toISOString())}, ${days}, 'approved')`
      );
    }),
  );
  await insertChunks(
    t,
    'insert into meals (mess_id, date, meal_type, dishes, created_by)',
    mess.menus.map(
      (m) =>
        `(${quote(messId)}, ${quote(m.date)}, ${quote(m.mealType)}, ARRAY[${m.dishes.map(quote).join(',')}]::text[], ` +
        `${quote(options.publisherId)})`,
    ),
  );
}
