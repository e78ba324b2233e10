// The weekly-menu section of `npm run bench` (BENCH_SECTIONS=rotation; not in the default sections; issue 22's
// figure), on the PostgreSQL server only: a mess with five meals a day sets a six-week rotation (210 entries) and
// the PUT publishes its 14 days (70 menus) in one statement. Measured over HTTP as the admin (who passes as a
// manager): the first set (after a DELETE, so 70 menus published) and a change (70 unedited menus withdrawn, then 70
// published). Target: 200 ms.
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { addDays, localParts } from '../src/common/time/dates';
import { freshServerDatabase, startInProcess, statsOf, type Stats } from './support';

const RUNS = Number(process.env.BENCH_ROTATION_RUNS ?? 30);
const TIME_ZONE = 'Asia/Kolkata';
const ADMIN_EMAIL = 'admin@rotation.local';
const ADMIN_PASSWORD = 'rotation-bench-password';
const MEALS = ['Breakfast', 'Lunch', 'Snacks', 'Dinner', 'Supper'];
const TIMES = [
  ['07:30', '09:30'],
  ['12:30', '14:30'],
  ['16:30', '17:30'],
  ['19:30', '21:00'],
  ['22:00', '23:00'],
];
const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const WEEKS = 6;

export interface RotationResult {
  entries: number;
  menusPerSet: number;
  firstSet: Stats;
  change: Stats;
}

const rotationBody = (tag: string, startsOn: string) => ({
  startsOn,
  weeks: WEEKS,
  entries: Array.from({ length: WEEKS }, (_, w) =>
    DAYS.flatMap((day) =>
      MEALS.map((mealType) => ({
        week: w + 1,
        day,
        mealType,
        dishes: [`${tag} ${mealType} ${day} ${w + 1}`, 'Rice', 'Dal', 'Curd'],
        notes: '',
      })),
    ),
  ).flat(),
});

export async function benchRotation(serverBase: string): Promise<RotationResult> {
  const db = await freshServerDatabase(serverBase, 'mess_bench_rotation');
  let app: NestFastifyApplication | undefined;
  try {
    const service = await startInProcess(db.url, {
      email: ADMIN_EMAIL,
      password: ADMIN_PASSWORD,
      timezone: TIME_ZONE,
    });
    app = service.app;
    const { call } = service;
    await call('POST', '/auth/admin/setup', {
      messName: 'Rotation Bench Mess',
      email: 'mess@rotation.local',
      phone: '+91-8012345678',
      expenseCategories: ['Groceries'],
      mealTimes: MEALS.map((name, i) => ({ name, startTime: TIMES[i][0], endTime: TIMES[i][1] })),
    });
    const today = localParts(new Date(), TIME_ZONE).date;
    const weekday = (new Date(`${today}T00:00:00Z`).getUTCDay() + 6) % 7;
    const startsOn = addDays(today, -weekday - 7); // a Monday, a week or more in the past

    const first: number[] = [];
    const change: number[] = [];
    for (let i = 0; i < RUNS + 3; i += 1) {
      await call('DELETE', '/meals/rotation');
      let started = performance.now();
      await call('PUT', '/meals/rotation', rotationBody(`a${i}`, startsOn));
      if (i >= 3) first.push(performance.now() - started);
      started = performance.now();
      await call('PUT', '/meals/rotation', rotationBody(`b${i}`, startsOn));
      if (i >= 3) change.push(performance.now() - started);
    }
    const listed = (await call('GET', `/meals?date=${addDays(today, 13)}`)) as { meals: unknown[] };
    if (listed.meals.length !== MEALS.length) throw new Error(`day 14 has ${listed.meals.length} menus`);
    const result = {
      entries: WEEKS * 7 * MEALS.length,
      menusPerSet: 14 * MEALS.length,
      firstSet: statsOf(first),
      change: statsOf(change),
    };
    console.log(`[rotation] ${JSON.stringify(result)}`);
    return result;
  } finally {
    await app?.close();
    await db.drop();
  }
}

export function rotationReport(r: RotationResult): string {
  return [
    '## The weekly menu (PostgreSQL server)',
    '',
    `A six-week rotation (${r.entries} entries) for a mess with five meals a day; each PUT publishes ` +
      `${r.menusPerSet} menus (14 days) in one INSERT … SELECT. Target: 200 ms.`,
    '',
    '| PUT /meals/rotation | p50 ms | p95 ms |',
    '|---|---|---|',
    `| first set (${r.menusPerSet} published) | ${r.firstSet.p50} | ${r.firstSet.p95} |`,
    `| change (${r.menusPerSet} withdrawn, ${r.menusPerSet} published) | ${r.change.p50} | ${r.change.p95} |`,
  ].join('\n');
}
