// The university section of `npm run bench` (BENCH_SECTIONS=university; not in the default sections): many messes on
// the PostgreSQL server, issue 20's performance figures.
//
// 1. Seeds a fresh database set-based, as the owner (row-level security does not apply; mess_id set explicitly):
//    BENCH_MESSES (50) messes × BENCH_MESS_MEMBERS (500) members × BENCH_MONTHS (12) months of marks (3 slots a day,
//    ~85 % marked, ~80 % present), a menu per slot, ~2.1 expenses a day and feedback on ~2 % of the meals eaten, per
//    mess; each mess's configuration. Then closes BENCH_CLOSED_MONTHS (2) months of every mess over HTTP (the month
//    close, timed) and adds a payment per charge.
// 2. Over HTTP against the service (in this process, as the analytics section starts it), for BENCH_SAMPLE_MESSES (5)
//    random messes as their own manager / treasurer: the bill, headcount, dues list, a statement (the month cache
//    cleared before every request where it applies); and the university view as admin (uncached and cached).
// 3. A dinner rush: BENCH_RUSH_SCANS (25,000) counter scans spread over all messes at BENCH_RUSH_RATE (83) a second,
//    each mess's own manager scanning its own members' passes.
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import * as bcrypt from 'bcrypt';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { cpus, loadavg, totalmem } from 'node:os';
import { Client } from 'pg';
import type { CurrentMember } from '../src/common/auth/auth.decorators';
import { inMess } from '../src/common/tenancy/mess-scope';
import { addDays, localParts, monthBounds, monthsBetween } from '../src/common/time/dates';
import { loadConfig } from '../src/config/app-config';
import { createApp } from '../src/app';
import { openDatabase } from '../src/database/open-database';
import { CounterService } from '../src/modules/attendance/counter.service';
import { MonthCache } from '../src/modules/billing/month-cache';
import { NotificationSchedules } from '../src/modules/notifications/notification-schedules';
import { FILL_KEPT_FIGURES } from '../src/database/kept-month-figures';
import type { LoadRequest } from './client-worker';
import {
  cpuPerRequest,
  freshServerDatabase,
  HttpClient,
  login,
  MEAL_TIMES,
  round,
  statsOf,
  type LoadStats,
  type Stats,
} from './support';

const MESSES = Number(process.env.BENCH_MESSES ?? 50);
const MESS_MEMBERS = Number(process.env.BENCH_MESS_MEMBERS ?? 500);
const MONTHS = Number(process.env.BENCH_MONTHS ?? 12);
const CLOSED_MONTHS = Number(process.env.BENCH_CLOSED_MONTHS ?? 2);
const SAMPLE_MESSES = Number(process.env.BENCH_SAMPLE_MESSES ?? 5);
const RUSH_SCANS = Number(process.env.BENCH_RUSH_SCANS ?? 25_000);
const RUSH_RATE = Number(process.env.BENCH_RUSH_RATE ?? 83);
/** Requests per endpoint per sampled mess (the samples of all sampled messes are pooled). */
const RUNS = Number(process.env.BENCH_UNIVERSITY_RUNS ?? 30);
const VIEW_UNCACHED_RUNS = 20;
/** How long the measurements wait for the closes' notifications to go out first. */
const BACKLOG_WAIT_MS = Number(process.env.BENCH_BACKLOG_WAIT_MS ?? 900_000);
const VIEW_CACHED_RUNS = 200;
const RUSH_SCANNERS = 50;
const TIME_ZONE = 'Asia/Kolkata';
const PASSWORD = 'demo-password';
const ADMIN_EMAIL = 'admin@uni.local';
const CATEGORIES = ['Groceries', 'Vegetables', 'Dairy', 'Gas', 'Staff', 'Maintenance', 'Other'];
const BULK_TABLES = ['attendance', 'meals', 'expenses', 'feedback'];

export interface UniversityResult {
  when: string;
  machine: string;
  /** The machine's 1-minute load average when the measurements began and ended (others share it). */
  load: [number, number];
  messes: number;
  membersPerMess: number;
  months: number;
  from: string;
  to: string;
  month: string;
  seedSeconds: number;
  /** Seconds of each seeding step. */
  seedSteps: Record<string, number>;
  tables: { table: string; rows: number; size: string }[];
  sampled: string[];
  closes: number;
  chargesPerClose: number;
  close: Stats & { max: number };
  bill: Stats;
  headcount: Stats;
  dues: Stats;
  statement: Stats;
  viewUncached: Stats;
  viewCached: Stats;
  rush?: LoadStats & {
    seconds: number;
    offeredPerSecond: number;
    passes: number;
    issueSeconds: number;
    /** CPU per answered scan, ms: this process (the service and the HTTP client's worker) and the database's backends. */
    cpuPerScan: { process: number; database: number };
    /** The service's event loop's delay during the rush (p99 and max, ms; sampled every 10 ms). */
    eventLoopDelay: { p99: number; max: number };
  };
  rushSkipped?: string;
  explain: Record<string, string>;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const emailOf = (mess: number, n: number) => `u${pad(mess, 3)}m${pad(n, 5)}@uni.local`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function benchUniversity(serverBase: string): Promise<UniversityResult> {
  const db = await freshServerDatabase(serverBase, 'mess_univ');
  try {
    return await run(db.url);
  } finally {
    // BENCH_UNIVERSITY_KEEP=1 keeps the seeded database (to read its plans); it is named in the log.
    if (process.env.BENCH_UNIVERSITY_KEEP === '1') process.stdout.write(`[university] kept ${db.url}\n`);
    else await db.drop();
  }
}

async function run(url: string): Promise<UniversityResult> {
  const now = new Date();
  const today = localParts(now, TIME_ZONE).date;
  const thisMonth = today.slice(0, 7);
  const months = monthsBetween(shiftMonth(thisMonth, -(MONTHS - 1)), thisMonth);
  const from = monthBounds(months[0]).first;
  const to = addDays(today, -1);
  const lastFull = shiftMonth(thisMonth, -1);

  const migrator = await openDatabase({
    databaseUrl: url,
    dataDir: 'memory://',
    statementTimeoutMs: 600_000,
  });
  await migrator.migrate();
  await migrator.close();

  const owner = new Client({ connectionString: url });
  await owner.connect();
  // Dropping the database at the end (with force) ends this connection too if an error left it open.
  owner.on('error', () => undefined);
  const q = async <T = Record<string, unknown>>(text: string): Promise<T[]> =>
    (await owner.query(text)).rows as T[];
  const steps: Record<string, number> = {};
  const step = async (name: string, text: string) => {
    const t0 = performance.now();
    await owner.query(text);
    steps[name] = round((performance.now() - t0) / 1000 + (steps[name] ?? 0));
  };
  const seedStarted = performance.now();
  process.stdout.write(
    `[university] seeding ${MESSES} messes × ${MESS_MEMBERS} members × ${MONTHS} months (${from}..${to}) …\n`,
  );
  await q(`set statement_timeout = 0`);
  await q(`set maintenance_work_mem = '1GB'`);
  await q(`set work_mem = '256MB'`);
  await q(`set synchronous_commit = off`);
  await q(`select setseed(0.42)`);
  const hash = await bcrypt.hash(PASSWORD, 10);
  const rebuild: string[] = [];
  for (const row of await q<{ tablename: string; indexname: string; indexdef: string }>(
    `select tablename, indexname, indexdef from pg_indexes
      where schemaname = 'public' and tablename in (${BULK_TABLES.map((t) => `'${t}'`).join(', ')})`,
  )) {
    if (row.indexname.endsWith('_pkey')) {
      await q(`alter table "${row.tablename}" drop constraint "${row.indexname}"`);
      rebuild.push(`alter table "${row.tablename}" add constraint "${row.indexname}" primary key (id)`);
    } else {
      await q(`drop index "${row.indexname}"`);
      rebuild.push(row.indexdef);
    }
  }
  for (const table of BULK_TABLES) await q(`alter table ${table} disable trigger all`);

  // Messes 1..N (slug mess-001 …), beside the first mess (`main`), where the university's admin belongs.
  await step(
    'messes',
    `insert into messes (id, slug)
      select ('00000000-0000-4000-9000-' || lpad(m::text, 12, '0'))::uuid, 'mess-' || lpad(m::text, 3, '0')
      from generate_series(1, ${MESSES}) m`,
  );
  const messIdOf = (m: number) => `00000000-0000-4000-9000-${pad(m, 12)}`;
  await step(
    'users',
    `insert into users (email, password_hash, full_name, college_id, room, phone, role, status, mess_id, created_at)
      values ('${ADMIN_EMAIL}', '${hash}', 'University Admin', 'ADMIN', 'Office', null, 'admin', 'approved',
        '00000000-0000-4000-8000-000000000001', timestamptz '${from}' - interval '2 days')`,
  );
  await step(
    'users',
    `insert into users (email, password_hash, full_name, college_id, room, phone, role, status, mess_id, created_at)
      select 'u' || lpad(m::text, 3, '0') || 'm' || lpad(n::text, 5, '0') || '@uni.local', '${hash}',
             'Member ' || m || '-' || n, 'C' || lpad(m::text, 3, '0') || lpad(n::text, 5, '0'), 'R-' || (100 + n % 400),
             '+91' || lpad(m::text, 3, '0') || lpad(n::text, 7, '0'),
             case when n <= 2 then 'manager' when n = 3 then 'treasurer' else 'student' end, 'approved',
             ('00000000-0000-4000-9000-' || lpad(m::text, 12, '0'))::uuid,
             timestamptz '${from}' - interval '1 day' + n * interval '1 second'
      from generate_series(1, ${MESSES}) m cross join generate_series(1, ${MESS_MEMBERS}) n`,
  );
  await step(
    'mess_config',
    `insert into mess_config (mess_id, mess_name, description, email, phone, expense_categories, meal_times, monthly_budget, created_by)
      select ms.id, 'Hostel Mess ' || substr(ms.slug, 6), 'Seeded university mess', ms.slug || '@college.edu', '+918012345678',
             '${JSON.stringify(CATEGORIES)}'::jsonb, '${JSON.stringify(MEAL_TIMES)}'::jsonb, 600000 * 500 / 2000,
             (select id from users where email = '${ADMIN_EMAIL}')
      from messes ms where ms.slug like 'mess-%'`,
  );
  const slots = `(values ('Breakfast', interval '8 hours'), ('Lunch', interval '13 hours'), ('Dinner', interval '20 hours')) sl(name, at)`;
  const days = `generate_series(date '${from}', date '${to}', interval '1 day') d`;
  // One month at a time: the same rows as one statement, with progress and without one 27-million-row transaction.
  for (const month of months) {
    const { first, last } = monthBounds(month);
    if (first > to) break;
    const end = last < to ? last : to;
    await step(
      'attendance',
      `insert into attendance (mess_id, user_id, date, meal_type, status, marked_by, marked_at, created_at, updated_at)
        select mess_id, id, day, meal, case when r < 0.80 then 'present' else 'absent' end, id, stamp, stamp, stamp
        from (select u.mess_id, u.id, d::date as day, sl.name as meal, d + sl.at - interval '5 hours 30 minutes' as stamp,
                     random() as r
              from users u cross join generate_series(date '${first}', date '${end}', interval '1 day') d cross join ${slots}
              where u.status = 'approved' and u.role <> 'admin') s
        where r < 0.85`,
    );
    process.stdout.write(`[university]   marks of ${month}: ${steps.attendance} s so far\n`);
  }
  const managerOf = `(select id from users u where u.mess_id = ms.id and u.role = 'manager' order by created_at limit 1)`;
  await step(
    'meals',
    `insert into meals (mess_id, date, meal_type, dishes, notes, created_by)
      select ms.id, d::date, sl.name,
             array['Dish ' || (1 + floor(random() * 20))::int, 'Dish ' || (21 + floor(random() * 20))::int, 'Rice'], '',
             ${managerOf}
      from messes ms cross join ${days} cross join ${slots} where ms.slug like 'mess-%'`,
  );
  await step(
    'expenses',
    `insert into expenses (mess_id, category, amount_paise, description, date, recorded_by)
      select ms.id, (array${JSON.stringify(CATEGORIES).replace(/"/g, "'")})[1 + floor(random() * ${CATEGORIES.length})::int],
             (5000 + floor(random() * 495000))::int, 'Seeded expense', d::date, ${managerOf}
      from messes ms cross join ${days} cross join generate_series(1, 3) k
      where ms.slug like 'mess-%' and (k <= 2 or random() < 0.14)`,
  );
  await step(
    'feedback',
    `insert into feedback (mess_id, user_id, date, meal_type, rating, comment)
      select mess_id, user_id, date, meal_type, (array[2, 3, 4, 4, 4, 5, 5, 3, 4, 1])[1 + floor(random() * 10)::int], ''
      from attendance where status = 'present' and random() < 0.02`,
  );
  for (const table of BULK_TABLES) await q(`alter table ${table} enable trigger all`);
  // The load went past the triggers that keep billing's month figures: they are filled from it once.
  for (const statement of FILL_KEPT_FIGURES) await step('month figures', statement);
  for (const definition of rebuild) await step('indexes', definition);
  // The kitchen's columns of the university view: a waste record on every meal of the view's month (last month) and
  // a stored forecast of today's and tomorrow's meals, in every mess (as the hourly job leaves them). After the
  // indexes: each record keeps its meal's present marks, as recording it does.
  await step(
    'kitchen',
    `insert into kitchen_waste (mess_id, date, meal_type, prepared_plates, leftover_grams, recorded_by, present_marks)
      select ms.id, d::date, sl.name, 400, (5000 + floor(random() * 20000))::int, ${managerOf},
             (select count(*) from attendance a
               where a.mess_id = ms.id and a.date = d::date and a.meal_type = sl.name and a.status = 'present')
      from messes ms cross join generate_series(date '${monthBounds(lastFull).first}', date '${monthBounds(lastFull).last}',
           interval '1 day') d cross join ${slots}
      where ms.slug like 'mess-%'`,
  );
  await step(
    'kitchen',
    `insert into kitchen_forecasts (mess_id, date, meal_type, expected, low, high)
      select ms.id, d::date, sl.name, 330, 300, 360
      from messes ms cross join generate_series(date '${today}', date '${addDays(today, 1)}', interval '1 day') d
           cross join ${slots}
      where ms.slug like 'mess-%'`,
  );
  await step('analyze', `analyze`);
  const seedSeconds = round((performance.now() - seedStarted) / 1000);
  process.stdout.write(`[university] seeded in ${seedSeconds} s: ${JSON.stringify(steps)}\n`);

  const config = loadConfig({
    NODE_ENV: 'production',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0000',
    DATABASE_URL: url,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '1000000',
    LOGIN_RATE_LIMIT_PER_MINUTE: '100000',
    LOGIN_RATE_LIMIT_PER_EMAIL: '100000',
    BCRYPT_QUEUE_TIMEOUT_MS: '60000',
  });
  const app: NestFastifyApplication = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  const base = `http://127.0.0.1:${port}/api`;
  const cache = app.get(MonthCache);
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  try {
    const admin = bearer(await login(base, ADMIN_EMAIL, PASSWORD));
    // Every mess's treasurer closes the oldest months (the close posts a charge per billed member).
    const closeSamples: number[] = [];
    const treasurers = new Map<number, Record<string, string>>();
    const managers = new Map<number, Record<string, string>>();
    for (let m = 1; m <= MESSES; m += 1) {
      treasurers.set(m, bearer(await login(base, emailOf(m, 3), PASSWORD)));
      managers.set(m, bearer(await login(base, emailOf(m, 1), PASSWORD)));
    }
    const toClose = months.slice(0, Math.min(CLOSED_MONTHS, months.length - 1));
    for (const month of toClose) {
      for (let m = 1; m <= MESSES; m += 1) {
        const started = performance.now();
        const res = await fetch(`${base}/analytics/months/${month}/close`, {
          method: 'POST',
          headers: treasurers.get(m)!,
        });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`close ${month} of mess ${m}: ${res.status}`);
        closeSamples.push(performance.now() - started);
      }
    }
    const [{ n: charges }] = await q<{ n: number }>(
      `select count(*)::int as n from account_entries where kind = 'charge'`,
    );
    await q(`insert into account_entries (mess_id, user_id, kind, direction, amount_paise, date, method, reference, recorded_by)
      select c.mess_id, c.user_id, 'payment', 'credit', greatest(1, (c.amount_paise * (0.8 + random() * 0.2))::bigint),
             (c.date + 10)::date, 'upi', 'UPI-' || c.seq, c.recorded_by
      from account_entries c where c.kind = 'charge' and (c.date + 10)::date <= current_date`);
    await q('analyze account_entries');
    process.stdout.write(
      `[university] ${closeSamples.length} closes, p95 ${statsOf(closeSamples).p95} ms; ${charges} charges\n`,
    );
    // The closes' notifications (a charge notice per member) and the month's catch-up (the seeded history has no
    // COST_SUMMARY or PAYMENT_DUE of last month, which a running mess sent on the 1st: the scheduler's first tick
    // queues one of each per member of every mess) go out through the delivery worker on the same pool; measured
    // while that backlog drains, every figure below (the rush's above all) would be the backlog's. A day at the mess
    // has none. So what is due is queued now, as the next tick would, and the bench waits for the queue to drain.
    const due = await app.get(NotificationSchedules).runDue();
    process.stdout.write(`[university] notifications due now queued: ${JSON.stringify(due)}\n`);
    const drained = await backlogDrained(q, BACKLOG_WAIT_MS);
    process.stdout.write(`[university] notification backlog ${drained}\n`);

    // The sample of messes, chosen at random.
    const all = Array.from({ length: MESSES }, (_, i) => i + 1);
    const sampled = all.sort(() => Math.random() - 0.5).slice(0, Math.min(SAMPLE_MESSES, MESSES));
    const loadBefore = loadavg()[0];
    const client = new HttpClient(() => cache.clear());
    const pooled = async (
      path: (m: number) => Promise<string> | string,
      who: (m: number) => Record<string, string>,
      uncached: boolean,
    ) => {
      const samples: number[] = [];
      for (const m of sampled)
        samples.push(...(await client.samples(`${base}${await path(m)}`, who(m), RUNS, uncached)));
      return statsOf(samples);
    };
    const headcountDay = to;
    const bill = await pooled(
      () => `/analytics/shares?month=${lastFull}`,
      (m) => managers.get(m)!,
      true,
    );
    const headcount = await pooled(
      () => `/analytics/headcount?date=${headcountDay}`,
      (m) => managers.get(m)!,
      true,
    );
    const dues = await pooled(
      () => `/accounts?limit=20`,
      (m) => treasurers.get(m)!,
      true,
    );
    const statementPath = async (m: number) => {
      const [{ id }] = await q<{ id: string }>(`select id from users where email = '${emailOf(m, 10)}'`);
      return `/accounts/${id}/statement?from=${months[0]}&to=${thisMonth}`;
    };
    const statement = await pooled(statementPath, (m) => treasurers.get(m)!, true);
    process.stdout.write(
      `[university] bill p95 ${bill.p95} ms, headcount p95 ${headcount.p95} ms, dues p95 ${dues.p95} ms, statement p95 ${statement.p95} ms\n`,
    );
    const viewPath = `${base}/analytics/messes?month=${lastFull}`;
    await client.samples(viewPath, admin, 1, false); // builds every mess's month inputs once
    const viewUncached = statsOf(await client.samples(viewPath, admin, VIEW_UNCACHED_RUNS, true));
    const viewCached = statsOf(await client.samples(viewPath, admin, VIEW_CACHED_RUNS, false));
    process.stdout.write(
      `[university] university view: uncached p95 ${viewUncached.p95} ms, cached p95 ${viewCached.p95} ms\n`,
    );

    // A failed rush is reported, not the end of the run (the figures above stand).
    const rush = await dinnerRush({ app, base, q, messIdOf, managers, client }).catch(
      (error: unknown): Pick<UniversityResult, 'rush' | 'rushSkipped'> => ({
        rushSkipped: `failed: ${String(error)}`,
      }),
    );
    await client.close();

    const explain: Record<string, string> = {};
    if (process.env.BENCH_EXPLAIN !== '0') {
      const [{ id: user }] = await q<{ id: string }>(
        `select id from users where email = '${emailOf(sampled[0], 10)}'`,
      );
      const mess = messIdOf(sampled[0]);
      const plan = async (text: string) =>
        (await q<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${text}`))
          .map((r) => r['QUERY PLAN'])
          .join('\n');
      // The bill's read of the month's kept figures (what a recalculation from the marks was before issue 38).
      explain.bill = await plan(
        `select user_id, sum(meals) from month_member_meals where mess_id = '${mess}' and month = '${lastFull}' group by user_id`,
      );
      explain.statement = await plan(
        `select * from account_entries where mess_id = '${mess}' and user_id = '${user}' order by date, seq`,
      );
      explain.dues = await plan(
        `select user_id, sum(case when direction = 'debit' then amount_paise else -amount_paise end) from account_entries where mess_id = '${mess}' group by user_id`,
      );
    }
    const tables = await q<{ table: string; rows: number; size: string }>(
      `select c.relname as "table", c.reltuples::bigint::float8 as rows, pg_size_pretty(pg_total_relation_size(c.oid)) as size
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind = 'r' and c.reltuples > 0 order by pg_total_relation_size(c.oid) desc`,
    );
    return {
      when: now.toISOString(),
      machine: `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB; Node ${process.version}; PostgreSQL ${(await q<{ server_version: string }>(`show server_version`))[0]?.server_version ?? ''}`,
      load: [round(loadBefore), round(loadavg()[0])],
      messes: MESSES,
      membersPerMess: MESS_MEMBERS,
      months: MONTHS,
      from,
      to,
      month: lastFull,
      seedSeconds,
      seedSteps: steps,
      tables,
      sampled: sampled.map((m) => `mess-${pad(m, 3)}`),
      closes: closeSamples.length,
      chargesPerClose: Math.round(charges / Math.max(1, closeSamples.length)),
      close: { ...statsOf(closeSamples), max: round(Math.max(...closeSamples)) },
      bill,
      headcount,
      dues,
      statement,
      viewUncached,
      viewCached,
      ...rush,
      explain,
    };
  } finally {
    await app.close();
    await owner.end();
  }
}

interface RushContext {
  app: NestFastifyApplication;
  base: string;
  q: <T = Record<string, unknown>>(text: string) => Promise<T[]>;
  messIdOf: (m: number) => string;
  managers: Map<number, Record<string, string>>;
  client: HttpClient;
}

/** 25,000 scans over all messes at ~83 a second: each mess's manager scans passes of its own members. */
async function dinnerRush({
  app,
  base,
  q,
  messIdOf,
  managers,
  client,
}: RushContext): Promise<Pick<UniversityResult, 'rush' | 'rushSkipped'>> {
  if (RUSH_SCANS <= 0) return { rushSkipped: 'BENCH_RUSH_SCANS=0' };
  const seconds = Math.ceil(RUSH_SCANS / RUSH_RATE);
  // A meal's window lies within one day: a rush that would cross midnight (IST) waits for the new day, at most
  // BENCH_RUSH_WAIT_MINUTES (45), else is skipped.
  const minuteNow = () => {
    const [hours, minutes] = localParts(new Date(), TIME_ZONE).time.split(':').map(Number);
    return hours * 60 + minutes;
  };
  const needed = Math.ceil(seconds / 60) + 20;
  if (minuteNow() + needed > 23 * 60 + 59) {
    const wait = 24 * 60 + 1 - minuteNow();
    if (wait > Number(process.env.BENCH_RUSH_WAIT_MINUTES ?? 45))
      return {
        rushSkipped: `run at ${localParts(new Date(), TIME_ZONE).time} ${TIME_ZONE}: the rush would cross midnight`,
      };
    process.stdout.write(`[university] waiting ${wait} min for midnight (${TIME_ZONE}) before the rush\n`);
    while (minuteNow() + needed > 23 * 60 + 59) await sleep(10_000);
  }
  const { date: today } = localParts(new Date(), TIME_ZONE);
  const minute = minuteNow();
  const endMinute = minute + needed;
  const hhmm = (m: number) => `${pad(Math.floor(m / 60), 2)}:${pad(m % 60, 2)}`;
  // A meal being served now in every mess ("Counter"), with its menu published (set as the owner).
  const counterMeal = {
    name: 'Counter',
    startTime: hhmm(Math.max(0, minute - 10)),
    endTime: hhmm(endMinute),
  };
  await q(`update mess_config set meal_times = '${JSON.stringify([...MEAL_TIMES, counterMeal])}'::jsonb`);
  await q(`insert into meals (mess_id, date, meal_type, dishes, notes, created_by)
    select ms.id, '${today}', 'Counter', array['Dal', 'Rice', 'Roti'], '',
           (select id from users u where u.mess_id = ms.id and u.role = 'manager' order by created_at limit 1)
    from messes ms where ms.slug like 'mess-%'`);
  await sleep(5_500); // the configuration's cache (5 s)

  // Passes as the service issues them (GET /attendance/pass signs the same), for distinct members of every mess.
  const perMess = Math.ceil(RUSH_SCANS / managers.size);
  const members = await q<{ id: string; email: string; full_name: string; mess_id: string; k: number }>(
    `select id, email, full_name, mess_id, k from (
       select id, email, full_name, mess_id, row_number() over (partition by mess_id order by email) as k
       from users where role <> 'admin' and mess_id <> '00000000-0000-4000-8000-000000000001') s
     where k <= ${perMess}`,
  );
  const counter = app.get(CounterService);
  const messNumber = new Map([...managers.keys()].map((m) => [messIdOf(m), m]));
  const issueStarted = performance.now();
  const requests: LoadRequest[] = [];
  for (const member of members) {
    const caller = {
      id: member.id,
      email: member.email,
      fullName: member.full_name,
      role: 'student',
      messId: member.mess_id,
    } as CurrentMember;
    const { pass } = await inMess(member.mess_id, () =>
      counter.issuePass(caller, { date: today, mealType: 'Counter' }),
    );
    requests.push({
      method: 'POST',
      url: `${base}/attendance/scan`,
      headers: { ...managers.get(messNumber.get(member.mess_id)!)!, 'content-type': 'application/json' },
      body: JSON.stringify({ pass }),
    });
  }
  const issueSeconds = round((performance.now() - issueStarted) / 1000);
  // Interleave the messes (k-th member of every mess, then the (k+1)-th …), as at one university's dinner.
  const order = members
    .map((m, i) => [m.k, m.mess_id, i] as const)
    .sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]));
  const interleaved = order.map(([, , i]) => requests[i]).slice(0, RUSH_SCANS);
  process.stdout.write(
    `[university] dinner rush: ${interleaved.length} scans at ~${RUSH_RATE}/s (${seconds} s) across ${managers.size} messes …\n`,
  );
  // CPU during the rush: this process's (the in-process service and the client's worker thread) and that of the
  // database backends connected to the bench's database (the service's pool), from /proc.
  const backends = async () =>
    (
      await q<{ pid: number }>(
        `select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
      )
    ).map((r) => r.pid);
  // BENCH_RUSH_PROFILE=<file.cpuprofile>: a V8 CPU profile of this process's main thread (the service) over the rush
  // alone (read it with scripts/cpuprofile-top.mjs).
  const profiler = process.env.BENCH_RUSH_PROFILE ? await startProfile() : undefined;
  // How long the service's event loop was held up (a long collection, a slow synchronous step): a scan waits as long.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const started = performance.now();
  const { result: stats, cpuPerRequest: cpu } = await cpuPerRequest(
    backends,
    () =>
      client.load({
        requests: interleaved,
        concurrency: RUSH_SCANNERS,
        thinkMs: Math.round((RUSH_SCANNERS * 1000) / RUSH_RATE),
      }),
    (done) => Object.values(done.statuses).reduce((sum, n) => sum + n, 0),
  );
  const elapsed = round((performance.now() - started) / 1000);
  loopDelay.disable();
  if (profiler) await profiler.stop(process.env.BENCH_RUSH_PROFILE!);
  const eventLoopDelay = {
    p99: round(loopDelay.percentile(99) / 1e6),
    max: round(loopDelay.max / 1e6),
  };
  const cpuPerScan = { process: cpu.process, database: cpu.database ?? 0 };
  process.stdout.write(
    `[university] CPU per scan: ${JSON.stringify(cpuPerScan)} ms; event loop delay ${JSON.stringify(eventLoopDelay)} ms\n`,
  );
  process.stdout.write(
    `[university] scans p95 ${stats.p95} ms, p99 ${stats.p99} ms, ${stats.perSecond}/s, ${JSON.stringify(stats.statuses)}\n`,
  );
  return {
    rush: {
      ...stats,
      seconds: elapsed,
      offeredPerSecond: RUSH_RATE,
      passes: interleaved.length,
      issueSeconds,
      cpuPerScan,
      eventLoopDelay,
    },
  };
}

/** The inspector's CPU profiler on this thread, from now until `stop` writes the profile to a file. */
async function startProfile(): Promise<{ stop: (file: string) => Promise<void> }> {
  const session = new Session();
  session.connect();
  const post = (method: string) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, (error, result) => (error ? reject(error) : resolve(result))),
    );
  await post('Profiler.enable');
  await post('Profiler.start');
  return {
    stop: async (file) => {
      const { profile } = (await post('Profiler.stop')) as { profile: unknown };
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

export function universityReport(u: UniversityResult): string {
  const verdict = (ok: boolean) => (ok ? 'met' : 'missed');
  const row = (name: string, s: Stats, target: number) =>
    `| ${name} | ${s.p50} / ${s.p95} | ≤ ${target} | ${verdict(s.p95 <= target)} |`;
  const lines = [
    '## A university (many messes), PostgreSQL server',
    '',
    `Run ${u.when}. Machine: ${u.machine}; 1-minute load average ${u.load[0]} when the measurements began, ${u.load[1]} at the end (the machine is shared; the HTTP client runs on it too).`,
    '',
    `Seed (set-based SQL as the owner): ${u.messes} messes × ${u.membersPerMess} members, ${u.months} months (${u.from}..${u.to}), in ${u.seedSeconds} s (${Object.entries(
      u.seedSteps,
    )
      .map(([k, v]) => `${k} ${v} s`)
      .join(
        ', ',
      )}). Then ${u.closes} month closes over HTTP (~${u.chargesPerClose} charges each) and a payment per charge.`,
    '',
    '| table | rows (estimate) | size |',
    '|---|---|---|',
    ...u.tables
      .slice(0, 10)
      .map((t) => `| ${t.table} | ${Math.round(t.rows).toLocaleString('en-US')} | ${t.size} |`),
    '',
    `Per-mess figures: ${RUNS} sequential requests per endpoint in each of ${u.sampled.length} random messes (${u.sampled.join(', ')}), as that mess's own manager (bill, headcount) or treasurer (dues, statement), samples pooled; the month cache cleared before each request. Month: ${u.month}; headcount of ${u.to}.`,
    '',
    '| measure | p50 / p95 ms | target p95 | |',
    '|---|---|---|---|',
    row(`bill, \`GET /api/analytics/shares?month=\` (${u.membersPerMess} lines, uncached)`, u.bill, 50),
    row('headcount, `GET /api/analytics/headcount` (uncached)', u.headcount, 20),
    row('dues list, `GET /api/accounts?limit=20`', u.dues, 50),
    row(`statement, \`GET /api/accounts/:id/statement\` (${u.months} months)`, u.statement, 20),
    `| month close, \`POST /api/analytics/months/:month/close\` (${u.closes} closes, one mess each) | ${u.close.p50} / ${u.close.p95} (max ${u.close.max}) | ≤ 300 | ${verdict(u.close.p95 <= 300)} |`,
    row(
      `university view, \`GET /api/analytics/messes?month=\` as admin, uncached (${VIEW_UNCACHED_RUNS} runs)`,
      u.viewUncached,
      250,
    ),
    row(`university view, cached (${VIEW_CACHED_RUNS} runs)`, u.viewCached, 10),
    '',
  ];
  if (u.rush) {
    const r = u.rush;
    lines.push(
      `Dinner rush: ${r.passes} \`POST /api/attendance/scan\` across all ${u.messes} messes, each by its own manager for its own members' passes (signed by the service's CounterService, ${r.issueSeconds} s), ${RUSH_SCANNERS} scanners offering ~${r.offeredPerSecond}/s, over ${r.seconds} s: answered ${r.perSecond}/s, p50 ${r.p50} ms, p95 **${r.p95} ms** (target ≤ 15: ${verdict(r.p95 <= 15)}), p99 ${r.p99} ms, max ${r.max} ms; statuses ${JSON.stringify(r.statuses)} (${verdict(Object.keys(r.statuses).every((s) => s === '201'))}: no error). CPU per scan: ${r.cpuPerScan.process} ms in the bench process (the service and the HTTP client's worker), ${r.cpuPerScan.database} ms in the database's backends. The service's event loop was held up p99 ${r.eventLoopDelay.p99} ms, at most ${r.eventLoopDelay.max} ms.`,
      '',
    );
  } else lines.push(`Dinner rush not run: ${u.rushSkipped}.`, '');
  for (const [name, plan] of Object.entries(u.explain))
    lines.push(`EXPLAIN ANALYZE (${name}):`, '', '```', plan, '```', '');
  return lines.join('\n');
}

function shiftMonth(month: string, delta: number): string {
  const [y, m] = month.split('-').map(Number);
  const index = y * 12 + (m - 1) + delta;
  return `${Math.floor(index / 12)}-${pad((index % 12) + 1, 2)}`;
}

/** Waits until no notification is queued or retrying (at most `waitMs`); says how it went. */
async function backlogDrained(q: <T>(sql: string) => Promise<T[]>, waitMs: number): Promise<string> {
  const started = Date.now();
  for (;;) {
    const [{ waiting }] = await q<{ waiting: number }>(
      `select count(*) filter (where status in ('queued', 'retrying'))::int as waiting from notifications`,
    );
    const seconds = Math.round((Date.now() - started) / 1000);
    if (waiting === 0) return `drained in ${seconds} s`;
    if (Date.now() - started > waitMs) return `still ${waiting} waiting after ${seconds} s (measured anyway)`;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}
