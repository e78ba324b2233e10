import { Logger } from '@nestjs/common';
import { rowsOf } from './sql-rows';
import * as bcrypt from 'bcrypt';
import { sql } from 'drizzle-orm';
import { addDays, monthBounds, monthsBetween } from '../common/time/dates';
import type { Database, DbOrTx } from './database';
import { FILL_KEPT_FIGURES } from './kept-month-figures';

export interface DemoOptions {
  members: number;
  months: number;
  /** The last month of the demo year (`YYYY-MM`); its days run to `today` if it is the current month. */
  lastMonth: string;
  today: string;
  seed?: number;
}

export interface DemoSummary {
  users: number;
  attendance: number;
  expenses: number;
  meals: number;
  feedback: number;
  from: string;
  to: string;
  adminEmail: string;
  adminPassword: string;
  memberPassword: string;
  milliseconds: number;
}

const MEAL_TIMES = [
  { name: 'Breakfast', startTime: '07:30', endTime: '09:30' },
  { name: 'Lunch', startTime: '12:30', endTime: '14:30' },
  { name: 'Dinner', startTime: '19:30', endTime: '21:30' },
];
const CATEGORIES = ['Groceries', 'Vegetables', 'Dairy', 'Gas', 'Staff', 'Maintenance', 'Other'];
const BULK_TABLES = ['attendance', 'feedback', 'expenses', 'meals'];
const logger = new Logger('SeedDemo');

/**
 * Fills a database with a realistic demo year, set-based inside PostgreSQL (generate_series) so two thousand members
 * and a year of meals load in seconds: 3 meal slots a day, ~80 % present and ~5 % absent marks, ~15 expenses a
 * week, a published menu for every slot and feedback on ~5 % of the meals eaten. It REPLACES every member and
 * every record: for demo and benchmark databases only. Deterministic for a given seed.
 */
export async function seedDemo(database: Database, options: DemoOptions): Promise<DemoSummary> {
  const started = performance.now();
  const from = monthBounds(
    monthsBetween(shiftMonth(options.lastMonth, -(options.months - 1)), options.lastMonth)[0],
  ).first;
  const lastDay = monthBounds(options.lastMonth).last;
  const to = options.today < lastDay && options.today >= from ? addDays(options.today, -1) : lastDay;
  const adminPassword = 'demo-admin-password';
  const memberPassword = 'demo-password';
  const [adminHash, memberHash] = await Promise.all([
    bcrypt.hash(adminPassword, 10),
    bcrypt.hash(memberPassword, 10),
  ]);

  const counts = await database.db.transaction(async (tx) => {
    const run = async (query: string) => {
      const t0 = performance.now();
      const result = await tx.execute(sql.raw(query));
      if (process.env.SEED_TIMINGS)
        logger.log(`${Math.round(performance.now() - t0)} ms  ${query.trim().slice(0, 60)}`);
      return result;
    };
    await run(`select setseed(${options.seed ?? 0.42})`);
    // Append-only history (the audit trail) refuses TRUNCATE; a demo database starts without history, so its guard
    // steps aside for this one statement, inside this transaction.
    const appendOnly = await appendOnlyGuards(tx);
    for (const guard of appendOnly) await run(`alter table ${guard.table} disable trigger ${guard.trigger}`);
    await run(
      'truncate table users, month_totals, month_member_meals, month_closures, month_close_log, account_entries, idempotent_requests cascade',
    );
    for (const guard of appendOnly) await run(`alter table ${guard.table} enable trigger ${guard.trigger}`);
    // Bulk loads go faster without per-row triggers and with indexes built once at the end.
    const indexes = await dropSecondaryIndexes(tx);
    // Foreign keys hold by construction here, so their per-row checks are switched off for the load too.
    for (const table of BULK_TABLES) await run(`alter table ${table} disable trigger all`);

    await run(`insert into users (email, password_hash, full_name, college_id, room, phone, role, status)
      values ('admin@mess.local', '${adminHash}', 'Demo Admin', 'ADMIN', 'Office', null, 'admin', 'approved')`);
    await run(`insert into users (email, password_hash, full_name, college_id, room, phone, role, status, created_at)
      select 'member' || lpad(n::text, 5, '0') || '@mess.local', '${memberHash}', 'Member ' || n, 'C' || lpad(n::text, 5, '0'),
             'R-' || (100 + n % 400), '+9198' || lpad(n::text, 8, '0'),
             case when n <= 2 then 'manager' when n = 3 then 'treasurer' else 'student' end, 'approved',
             timestamptz '${from}' - interval '1 day' + n * interval '1 second'
      from generate_series(1, ${options.members}) n`);
    await run(`insert into mess_config (mess_name, description, email, phone, expense_categories, meal_times, monthly_budget, created_by)
      select 'Demo Hostel Mess', 'Seeded demo data', 'mess@college.edu', '+918012345678',
             '${JSON.stringify(CATEGORIES)}'::jsonb, '${JSON.stringify(MEAL_TIMES)}'::jsonb, 600000, id
      from users where email = 'admin@mess.local'`);

    const slots = `(values ('Breakfast', interval '8 hours'), ('Lunch', interval '13 hours'), ('Dinner', interval '20 hours')) m(name, at)`;
    const days = `generate_series(date '${from}', date '${to}', interval '1 day') d`;
    await run(`insert into attendance (user_id, date, meal_type, status, marked_by, marked_at, created_at, updated_at)
      select id, day, meal, case when r < 0.80 then 'present' else 'absent' end, id, stamp, stamp, stamp
      from (select u.id, d::date as day, m.name as meal, d + m.at - interval '5 hours 30 minutes' as stamp, random() as r
            from users u cross join ${days} cross join ${slots}
            where u.status = 'approved') s
      where r < 0.85`);
    const manager = `(select id from users where role = 'manager' order by created_at limit 1)`;
    await run(`insert into meals (date, meal_type, dishes, notes, created_by)
      select d::date, m.name, array['Dish ' || (1 + floor(random() * 20))::int, 'Dish ' || (21 + floor(random() * 20))::int, 'Rice'],
             '', ${manager}
      from ${days} cross join ${slots}`);
    await run(`insert into expenses (category, amount_paise, description, date, recorded_by)
      select (array${sqlArray(CATEGORIES)})[1 + floor(random() * ${CATEGORIES.length})::int],
             (20000 + floor(random() * 1980000))::int, 'Demo expense', d::date, ${manager}
      from ${days} cross join generate_series(1, 3) k
      where k <= 2 or random() < 0.14`);
    await run(`insert into feedback (user_id, date, meal_type, rating, comment)
      select user_id, date, meal_type, (array[2, 3, 4, 4, 4, 5, 5, 3, 4, 1])[1 + floor(random() * 10)::int], ''
      from attendance where status = 'present' and random() < 0.05`);

    for (const table of BULK_TABLES) await run(`alter table ${table} enable trigger all`);
    // The load went past the triggers that keep billing's month figures: they are filled from it once.
    for (const statement of FILL_KEPT_FIGURES) await run(statement);
    for (const definition of indexes) await run(definition);
    for (const table of [...BULK_TABLES, 'users']) await run(`analyze ${table}`);
    const [row] = await tableCounts(tx);
    return row;
  });
  return {
    ...counts,
    from,
    to,
    adminEmail: 'admin@mess.local',
    adminPassword,
    memberPassword,
    milliseconds: Math.round(performance.now() - started),
  };
}

/**
 * Drops every index of the bulk tables, primary keys included (nothing references these tables), returning the
 * statements that rebuild them afterwards.
 */
async function dropSecondaryIndexes(tx: DbOrTx): Promise<string[]> {
  const result = await tx.execute(
    sql.raw(`select tablename, indexname, indexdef from pg_indexes
      where schemaname = 'public' and tablename in (${BULK_TABLES.map((t) => `'${t}'`).join(', ')})`),
  );
  const rebuild: string[] = [];
  for (const row of rowsOf<{ tablename: string; indexname: string; indexdef: string }>(result)) {
    if (row.indexname.endsWith('_pkey')) {
      await tx.execute(sql.raw(`alter table "${row.tablename}" drop constraint "${row.indexname}"`));
      rebuild.push(`alter table "${row.tablename}" add constraint "${row.indexname}" primary key (id)`);
    } else {
      await tx.execute(sql.raw(`drop index "${row.indexname}"`));
      rebuild.push(row.indexdef);
    }
  }
  return rebuild;
}

/** The triggers that make tables append-only (they run `forbid_change()`), as quoted identifiers. */
async function appendOnlyGuards(tx: DbOrTx): Promise<{ table: string; trigger: string }[]> {
  const result = await tx.execute(
    sql.raw(`select quote_ident(c.relname) as "table", quote_ident(t.tgname) as "trigger"
      from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_proc p on p.oid = t.tgfoid
      where p.proname = 'forbid_change' and not t.tgisinternal`),
  );
  return rowsOf<{ table: string; trigger: string }>(result);
}

async function tableCounts(tx: DbOrTx) {
  const result = await tx.execute(
    sql.raw(`select (select count(*) from users)::int as users, (select count(*) from attendance)::int as attendance,
      (select count(*) from expenses)::int as expenses, (select count(*) from meals)::int as meals,
      (select count(*) from feedback)::int as feedback`),
  );
  return rowsOf<{ users: number; attendance: number; expenses: number; meals: number; feedback: number }>(
    result,
  );
}

export { rowsOf };

function shiftMonth(month: string, delta: number): string {
  const [y, m] = month.split('-').map(Number);
  const index = y * 12 + (m - 1) + delta;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
}

const sqlArray = (values: string[]) => `[${values.map((v) => `'${v}'`).join(', ')}]`;
