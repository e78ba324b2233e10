// The kitchen section of `npm run bench` (BENCH_SECTIONS=kitchen; not in the default sections; issue 35's figure),
// on the PostgreSQL server only: a mess of 2,000 dining members with 12 months of attendance (each member's own
// propensity per meal, a weekday pattern, ~70 % present), a menu on every meal and 40 approved leaves, then
// `GET /kitchen/forecast` for 7 days (today and 6 on) over HTTP as the admin, uncached (no response cache: every
// request reads its dates' records and forecasts from the mess's model kept for today). Target: 100 ms p95. Also the
// first forecast of a day (the model dropped before each request: the window read and fitted again), for comparison.
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { FIRST_MESS_ID } from '../src/common/tenancy/mess-scope';
import { addDays, localParts, mealSpan } from '../src/common/time/dates';
import { freshServerDatabase, startInProcess, statsOf, type Stats } from './support';

const MEMBERS = Number(process.env.BENCH_KITCHEN_MEMBERS ?? 2000);
const HISTORY_DAYS = Number(process.env.BENCH_KITCHEN_DAYS ?? 365);
const RUNS = Number(process.env.BENCH_KITCHEN_RUNS ?? 40);
const REFIT_RUNS = Number(process.env.BENCH_KITCHEN_REFIT_RUNS ?? 10);
const TIME_ZONE = 'Asia/Kolkata';
const ADMIN_EMAIL = 'admin@kitchen.local';
const ADMIN_PASSWORD = 'kitchen-bench-password';
const MEALS = [
  { name: 'Breakfast', startTime: '07:30', endTime: '09:30' },
  { name: 'Lunch', startTime: '12:30', endTime: '14:30' },
  { name: 'Dinner', startTime: '19:30', endTime: '21:30' },
];

export interface KitchenResult {
  members: number;
  historyDays: number;
  marks: number;
  meals: number;
  forecast: Stats & { max: number };
  refit: Stats & { max: number };
}

export async function benchKitchen(serverBase: string): Promise<KitchenResult> {
  const db = await freshServerDatabase(serverBase, 'mess_bench_kitchen');
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
      messName: 'Kitchen Bench Mess',
      email: 'mess@kitchen.local',
      phone: '+91-8012345678',
      expenseCategories: ['Groceries'],
      mealTimes: MEALS,
    });

    const today = localParts(new Date(), TIME_ZONE).date;
    const first = addDays(today, -HISTORY_DAYS);
    const joined = addDays(first, -1);
    const slots = `(values ${MEALS.map((m, i) => `('${m.name}', ${i}, interval '${m.startTime}')`).join(', ')}) sl(name, i, at)`;
    const owner = new Client({ connectionString: db.url });
    await owner.connect();
    let marks = 0;
    const forecastOnce = async () => {
      const { forecasts } = (await call(
        'GET',
        `/kitchen/forecast?from=${today}&to=${addDays(today, 6)}`,
      )) as { forecasts: unknown[] };
      if (forecasts.length !== 7 * MEALS.length)
        throw new Error(`the forecast has ${forecasts.length} meals, not ${7 * MEALS.length}`);
    };
    const samples: number[] = [];
    const refit: number[] = [];
    let menus = 0;
    try {
      const joinedAt = mealSpan(joined, MEALS[0], TIME_ZONE).start;
      await owner.query(
        `insert into users (mess_id, email, full_name, role, status, dines, created_at)
         select $1, 'kitchen' || n || '@bench.local', 'Member ' || lpad(n::text, 5, '0'), 'student', 'approved', true, $3
         from generate_series(1, $2::int) n`,
        [FIRST_MESS_ID, MEMBERS, joinedAt],
      );
      await owner.query(
        `insert into membership_periods (mess_id, user_id, started_at, dines)
         select $1, id, $2::timestamptz, true from users where email like '%@bench.local'`,
        [FIRST_MESS_ID, joinedAt],
      );
      const { rows: admins } = await owner.query<{ id: string }>(`select id from users where email = $1`, [
        ADMIN_EMAIL,
      ]);
      // Each member's propensity per meal (from a hash of the id), lower on Sundays' breakfasts and Saturdays'
      // dinners; present or absent marked for 85 % of the slots, the rest unmarked. One month at a time.
      for (let from = first; from < today; from = addDays(from, 31)) {
        const to = addDays(from, 30) < addDays(today, -1) ? addDays(from, 30) : addDays(today, -1);
        const result = await owner.query(
          `insert into attendance (mess_id, user_id, date, meal_type, status, marked_by, marked_at, created_at, updated_at)
           select mess_id, id, day, meal, case when r < prop then 'present' else 'absent' end, id, stamp, stamp, stamp
           from (select u.mess_id, u.id, d::date as day, sl.name as meal, d + sl.at - interval '5 hours 30 minutes' as stamp,
                        random() as r, random() as marked,
                        (0.45 + 0.5 * ((('x' || substr(md5(u.id::text || sl.name), 1, 6))::bit(24)::int) / 16777215.0))
                          * case when extract(dow from d) = 0 and sl.i = 0 then 0.6
                                 when extract(dow from d) = 6 and sl.i = 2 then 0.75 else 1 end as prop
                 from users u cross join generate_series($1::date, $2::date, interval '1 day') d cross join ${slots}
                 where u.email like '%@bench.local') s
           where marked < 0.85`,
          [from, to],
        );
        marks += result.rowCount ?? 0;
      }
      // Some declarations for the coming week (today and on), as members make them.
      const declared = await owner.query(
        `insert into attendance (mess_id, user_id, date, meal_type, status, marked_by, marked_at, created_at, updated_at)
         select u.mess_id, u.id, d::date, sl.name, case when random() < 0.8 then 'present' else 'absent' end, u.id, now(), now(), now()
         from users u cross join generate_series($1::date, $2::date, interval '1 day') d cross join ${slots}
         where u.email like '%@bench.local' and random() < 0.15`,
        [today, addDays(today, 6)],
      );
      marks += declared.rowCount ?? 0;
      // A menu on every meal, from a rotation of 12 dishes (two a meal).
      const menu = await owner.query(
        `insert into meals (mess_id, date, meal_type, dishes, created_by)
         select $1, d::date, sl.name,
                array['Dish ' || ((extract(doy from d)::int + sl.i) % 12), 'Side ' || ((extract(doy from d)::int * 5 + sl.i) % 7)],
                $4
         from generate_series($2::date, $3::date, interval '1 day') d cross join ${slots}`,
        [FIRST_MESS_ID, first, addDays(today, 6), admins[0].id],
      );
      menus = menu.rowCount ?? 0;
      await owner.query('analyze');
      for (let i = 0; i < RUNS + 3; i += 1) {
        const started = performance.now();
        await forecastOnce();
        if (i >= 3) samples.push(performance.now() - started);
      }
      for (let i = 0; i < REFIT_RUNS; i += 1) {
        await owner.query('delete from kitchen_models');
        const started = performance.now();
        await forecastOnce();
        refit.push(performance.now() - started);
      }
    } finally {
      await owner.end();
    }
    const result = {
      members: MEMBERS,
      historyDays: HISTORY_DAYS,
      marks,
      meals: menus,
      forecast: { ...statsOf(samples), max: Math.round(Math.max(...samples) * 100) / 100 },
      refit: { ...statsOf(refit), max: Math.round(Math.max(...refit) * 100) / 100 },
    };
    console.log(`[kitchen] ${JSON.stringify(result)}`);
    return result;
  } finally {
    await app?.close();
    // BENCH_KITCHEN_KEEP=1 keeps the seeded database (to read its plans); it is named in the log.
    if (process.env.BENCH_KITCHEN_KEEP === '1') console.log(`[kitchen] kept ${db.url}`);
    else await db.drop();
  }
}

export function kitchenReport(r: KitchenResult): string {
  return [
    "## The kitchen's forecast (PostgreSQL server)",
    '',
    `A mess of ${r.members} dining members with ${r.historyDays} days of history (${r.marks} marks, ${r.meals} ` +
      'menus): `GET /kitchen/forecast` for 7 days (today and 6 on), uncached, over HTTP, from the model kept for ' +
      "today; and the day's first forecast (the window read and fitted again). Target: 100 ms p95.",
    '',
    '| GET /kitchen/forecast | p50 ms | p95 ms |',
    '|---|---|---|',
    `| 7 days | ${r.forecast.p50} | ${r.forecast.p95} (max ${r.forecast.max}) |`,
    `| 7 days, the day's first (fits) | ${r.refit.p50} | ${r.refit.p95} (max ${r.refit.max}) |`,
  ].join('\n');
}
