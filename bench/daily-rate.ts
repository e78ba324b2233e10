// The daily-rate section of `npm run bench` (BENCH_SECTIONS=daily; not in the default sections; issue 33's figure),
// on the PostgreSQL server only: a mess charging by the daily rate with 2,000 members on its rolls and 300 approved
// leaves in the month (bands 3/5/8 days, a cap of 10 a term) closes the month (the daily bill computed from the rolls
// and the leave in the close's transaction, frozen with the other two, and 2,000 itemised charges posted), then
// reopens it (2,000 reversals). Measured over HTTP as the admin, close and reopen alternating. Target: 500 ms p95.
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { FIRST_MESS_ID } from '../src/common/tenancy/mess-scope';
import { addDays, localParts, mealSpan, monthBounds } from '../src/common/time/dates';
import { freshServerDatabase, startInProcess, statsOf, type Stats, MEAL_TIMES } from './support';

const MEMBERS = Number(process.env.BENCH_DAILY_MEMBERS ?? 2000);
const LEAVES = Number(process.env.BENCH_DAILY_LEAVES ?? 300);
const RUNS = Number(process.env.BENCH_DAILY_RUNS ?? 20);
/** `proportional`: the same mess closing by meals, the baseline on the same machine. */
const METHOD = process.env.BENCH_DAILY_METHOD ?? 'daily';
const TIME_ZONE = 'Asia/Kolkata';
const ADMIN_EMAIL = 'admin@daily.local';
const ADMIN_PASSWORD = 'daily-bench-password';

export interface DailyRateResult {
  members: number;
  leaves: number;
  charges: number;
  close: Stats & { max: number };
  reopen: Stats;
}

export async function benchDailyRate(serverBase: string): Promise<DailyRateResult> {
  const db = await freshServerDatabase(serverBase, 'mess_bench_daily');
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
      messName: 'Daily Bench Mess',
      email: 'mess@daily.local',
      phone: '+91-8012345678',
      expenseCategories: ['Groceries'],
      mealTimes: MEAL_TIMES,
      chargeMethod: METHOD,
      dailyRate: 123.45,
      rebateBands: [
        { minDays: 3, percent: 75 },
        { minDays: 5, percent: 90 },
        { minDays: 8, percent: 100 },
      ],
      rebateDaysPerTerm: 10,
    });

    // The last full month; members on the rolls from two months before it, leave spread over it.
    const today = localParts(new Date(), TIME_ZONE).date;
    const [y, m] = today.slice(0, 7).split('-').map(Number);
    const month = m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, '0')}`;
    const { first, last } = monthBounds(month);
    const joined = addDays(first, -60);
    const owner = new Client({ connectionString: db.url });
    await owner.connect();
    try {
      await owner.query(
        `insert into users (mess_id, email, full_name, role, status, dines)
         select $1, 'daily' || n || '@bench.local', 'Member ' || lpad(n::text, 5, '0'), 'student', 'approved', true
         from generate_series(1, $2::int) n`,
        [FIRST_MESS_ID, MEMBERS],
      );
      await owner.query(
        `insert into membership_periods (mess_id, user_id, started_at, dines)
         select $1, id, $2::timestamptz, true from users where email like '%@bench.local'`,
        [FIRST_MESS_ID, mealSpan(joined, MEAL_TIMES[0], TIME_ZONE).start],
      );
      const { rows } = await owner.query<{ id: string }>(
        `select id from users where email like '%@bench.local' order by email limit $1`,
        [LEAVES],
      );
      const days = Number(last.slice(8));
      const values: unknown[] = [];
      const tuples = rows.map((row, i) => {
        const length = 1 + (i % 10);
        const start = addDays(first, i % (days - length));
        const end = addDays(start, length - 1);
        values.push(
          FIRST_MESS_ID,
          row.id,
          start,
          end,
          mealSpan(start, MEAL_TIMES[0], TIME_ZONE).start,
          mealSpan(end, MEAL_TIMES[2], TIME_ZONE).end,
          length,
        );
        const p = i * 7;
        return `($${p + 1}, $${p + 2}, $${p + 3}, $${p + 4}, 'Breakfast', 'Dinner', $${p + 5}, $${p + 6}, $${p + 7}, 'approved')`;
      });
      await owner.query(
        `insert into leaves (mess_id, user_id, start_date, end_date, start_meal_type, end_meal_type, starts_at,
           ends_at, days, status) values ${tuples.join(', ')}`,
        values,
      );
    } finally {
      await owner.end();
    }

    const close: number[] = [];
    const reopen: number[] = [];
    let charges = 0;
    for (let i = 0; i < RUNS + 3; i += 1) {
      let started = performance.now();
      const bill = (await call('POST', `/analytics/months/${month}/close`)) as { shares: unknown[] };
      if (i >= 3) close.push(performance.now() - started);
      charges = bill.shares.length;
      started = performance.now();
      await call('POST', `/analytics/months/${month}/reopen`);
      if (i >= 3) reopen.push(performance.now() - started);
    }
    if (METHOD === 'daily' && charges !== MEMBERS)
      throw new Error(`the close billed ${charges} members, not ${MEMBERS}`);
    const result = {
      members: MEMBERS,
      leaves: LEAVES,
      charges,
      close: { ...statsOf(close), max: Math.round(Math.max(...close) * 100) / 100 },
      reopen: statsOf(reopen),
    };
    console.log(`[daily] ${JSON.stringify(result)}`);
    return result;
  } finally {
    await app?.close();
    await db.drop();
  }
}

export function dailyRateReport(r: DailyRateResult): string {
  return [
    '## Closing a month by the daily rate (PostgreSQL server)',
    '',
    `A mess charging by the daily rate (₹123.45, bands 3/5/8 days, a cap of 10 a term) with ${r.members} members ` +
      `on its rolls and ${r.leaves} approved leaves (1–10 days) in the month: each close computes the daily bill ` +
      `from the rolls and the leave in its transaction and posts ${r.charges} itemised charges; each reopen ` +
      'reverses them. Target: 500 ms p95 for the close.',
    '',
    '| POST /analytics/months/{month}/… | p50 ms | p95 ms |',
    '|---|---|---|',
    `| close | ${r.close.p50} | ${r.close.p95} (max ${r.close.max}) |`,
    `| reopen | ${r.reopen.p50} | ${r.reopen.p95} |`,
  ].join('\n');
}
