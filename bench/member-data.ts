// The member-data section of `npm run bench` (BENCH_SECTIONS=member-data; not in the default sections): issue 36's
// figures, on the PostgreSQL server.
//
// 1. A fresh database; BENCH_DATA_MEMBERS (5) members, each with a year of history (2025, seeded as the tables'
//    owner): a mark for every meal of every day (1,095), 12 monthly charges, 30 payments that settle them, 12
//    feedback, 24 notifications and an audit row per payment; and BENCH_DATA_PEERS (500) other members, each with the
//    same year of marks, so the member's rows are a few among many; and BENCH_DATA_TRAIL (100,000) audit rows about
//    those others (late marks, with the member by id), the trail erasure and the export search.
// 2. The admin downloads the first member's data (`GET /users/:id/data`, read to its last byte): 3 warm-up runs, then
//    BENCH_DATA_RUNS (20). Target: p50 ≤ 300 ms.
// 3. The admin erases each member once (`POST /users/:id/erase`): one sample per member. Target: p50 ≤ 500 ms.
//
// The service runs as it is deployed: the built service in its own process, this one the client, same machine.
import * as bcrypt from 'bcrypt';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { FIRST_MESS_ID } from '../src/common/tenancy/mess-scope';
import {
  api,
  freshServerDatabase,
  login,
  messSetupBody,
  round,
  spawnAndWait,
  statsOf,
  type Stats,
} from './support';

const MEMBERS = Number(process.env.BENCH_DATA_MEMBERS ?? 5);
const PEERS = Number(process.env.BENCH_DATA_PEERS ?? 500);
const RUNS = Number(process.env.BENCH_DATA_RUNS ?? 20);
/** Audit rows about the other members: erasure and the export search the mess's trail. */
const TRAIL = Number(process.env.BENCH_DATA_TRAIL ?? 100_000);
const PASSWORD = 'demo-password';
const ADMIN_EMAIL = 'admin@data.local';

export interface MemberDataResult {
  when: string;
  load: [number, number];
  members: number;
  peers: number;
  trail: number;
  /** One member's rows: marks, charges, payments, feedback, notifications, audit rows. */
  rowsPerMember: Record<string, number>;
  exportBytes: number;
  exportMs: Stats;
  eraseMs: Stats;
}

export async function benchMemberData(serverBase: string): Promise<MemberDataResult> {
  const { url, drop } = await freshServerDatabase(serverBase, 'bench_member_data');
  const service = await spawnAndWait(
    join(__dirname, '..', 'src', 'main.js'),
    {
      NODE_ENV: 'production',
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0000',
      DATABASE_URL: url,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      ADMIN_EMAIL,
      ADMIN_PASSWORD: PASSWORD,
      RATE_LIMIT_PER_MINUTE: '1000000',
      MESS_TIMEZONE: 'Asia/Kolkata',
    },
    '/api/live',
  );
  const base = `${service.base}/api`;
  const owner = new Client({ connectionString: url });
  await owner.connect();
  try {
    const admin = await login(base, ADMIN_EMAIL, PASSWORD);
    const setup = await api(base, 'POST', '/auth/admin/setup', admin, messSetupBody('Bench Mess'));
    if (setup.status !== 200) throw new Error(`setup: ${setup.status} ${JSON.stringify(setup.body)}`);
    const hash = await bcrypt.hash(PASSWORD, 10);
    const mess = `'${FIRST_MESS_ID}'::uuid`;
    await owner.query(
      `insert into users (email, password_hash, full_name, college_id, room, phone, role, status, mess_id)
       select 'm' || n || '@data.local', '${hash}', 'Member ' || n, 'D' || lpad(n::text, 5, '0'), 'R-' || n,
              '+9190000' || lpad(n::text, 5, '0'), 'student', 'approved', ${mess}
       from generate_series(1, ${MEMBERS + PEERS}) n`,
    );
    // A mark for every meal of 2025, for everyone.
    await owner.query(
      `insert into attendance (mess_id, user_id, date, meal_type, status, marked_by, source)
       select ${mess}, u.id, d::date, m, case when extract(doy from d)::int % 7 = 0 then 'absent' else 'present' end,
              u.id, 'member'
       from users u, generate_series('2025-01-01'::date, '2025-12-31'::date, '1 day') d,
            unnest(array['Breakfast', 'Lunch', 'Dinner']) m
       where u.email like 'm%@data.local'`,
    );
    const members = (
      await owner.query<{ id: string }>(
        `select id from users where email like 'm%@data.local' order by email limit ${MEMBERS}`,
      )
    ).rows.map((r) => r.id);
    const ids = `array[${members.map((id) => `'${id}'::uuid`).join(',')}]`;
    // 12 charges of 3,000 rupees; 30 payments of 1,200 rupees settle them exactly.
    await owner.query(
      `insert into account_entries (mess_id, user_id, kind, direction, amount_paise, month, date)
       select ${mess}, u, 'charge', 'debit', 300000, to_char(d, 'YYYY-MM'),
              (date_trunc('month', d) + interval '1 month - 1 day')::date
       from unnest(${ids}) u, generate_series('2025-01-01'::date, '2025-12-01'::date, '1 month') d`,
    );
    await owner.query(
      `insert into account_entries (mess_id, user_id, kind, direction, amount_paise, date, method, note)
       select ${mess}, u, 'payment', 'credit', 120000, '2025-01-10'::date + n * 12, 'upi', 'Instalment ' || n
       from unnest(${ids}) u, generate_series(1, 30) n`,
    );
    await owner.query(
      `insert into audit_events (mess_id, action, entity, entity_id, after)
       select ${mess}, 'payment-recorded', 'account', e.user_id::text,
              jsonb_build_object('entryId', e.id, 'amountPaise', e.amount_paise, 'note', e.note)
       from account_entries e where e.kind = 'payment'`,
    );
    await owner.query(
      `insert into feedback (mess_id, user_id, date, meal_type, rating, comment)
       select ${mess}, u, ('2025-01-15'::date + (n - 1) * interval '1 month')::date, 'Lunch', 1 + n % 5,
              'Comment ' || n
       from unnest(${ids}) u, generate_series(1, 12) n`,
    );
    await owner.query(
      `insert into notifications (mess_id, user_id, type, title, content, status)
       select ${mess}, u, 'COST_SUMMARY', 'Your bill for month ' || n, 'Dear member, your share is …', 'sent'
       from unnest(${ids}) u, generate_series(1, 24) n`,
    );
    await owner.query(
      `insert into audit_events (mess_id, action, entity, entity_id, before, after)
       select ${mess}, 'changed-after-meal', 'attendance', a.id::text, jsonb_build_object('status', 'absent'),
              jsonb_build_object('userId', a.user_id, 'date', a.date, 'mealType', a.meal_type, 'status', a.status,
                                 'source', 'mess')
       from attendance a where a.user_id <> all(${ids}) limit ${TRAIL}`,
    );
    await owner.query('analyze');
    const counted = async (table: string) =>
      Number(
        (
          await owner.query<{ n: string }>(
            `select count(*) as n from ${table} where user_id = '${members[0]}'`,
          )
        ).rows[0].n,
      );
    const rowsPerMember = {
      marks: await counted('attendance'),
      entries: await counted('account_entries'),
      feedback: await counted('feedback'),
      notifications: await counted('notifications'),
    };

    const load0 = loadavg()[0];
    let exportBytes = 0;
    const download = async () => {
      const res = await fetch(`${base}/users/${members[0]}/data`, {
        headers: { authorization: `Bearer ${admin}` },
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`export: ${res.status} ${text}`);
      exportBytes = Buffer.byteLength(text);
    };
    for (let i = 0; i < 3; i += 1) await download();
    const exportSamples: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      const started = performance.now();
      await download();
      exportSamples.push(performance.now() - started);
    }
    const eraseSamples: number[] = [];
    for (const id of members) {
      const started = performance.now();
      const res = await api(base, 'POST', `/users/${id}/erase`, admin, { confirm: true });
      eraseSamples.push(performance.now() - started);
      if (res.status !== 200) throw new Error(`erase: ${res.status} ${JSON.stringify(res.body)}`);
    }
    return {
      when: new Date().toISOString(),
      load: [round(load0), round(loadavg()[0])],
      members: MEMBERS,
      peers: PEERS,
      trail: Number((await owner.query<{ n: string }>('select count(*) as n from audit_events')).rows[0].n),
      rowsPerMember,
      exportBytes,
      exportMs: statsOf(exportSamples),
      eraseMs: statsOf(eraseSamples),
    };
  } finally {
    await owner.end();
    await service.stop();
    await drop();
  }
}

export function memberDataReport(r: MemberDataResult): string {
  return [
    "## A member's data (issue 36, server engine)",
    '',
    `${r.when}; load average ${r.load[0]} → ${r.load[1]}. ${r.members} members with a year of history each ` +
      `(${Object.entries(r.rowsPerMember)
        .map(([k, v]) => `${v} ${k}`)
        .join(', ')}), among ${r.peers} others with a year of marks; ${r.trail} audit rows in the mess.`,
    '',
    '| what | p50 | p95 | target |',
    '|---|---|---|---|',
    `| \`GET /users/:id/data\` (${Math.round(r.exportBytes / 1024)} KiB, read to the last byte) | ${r.exportMs.p50} ms | ${r.exportMs.p95} ms | ≤ 300 ms |`,
    `| \`POST /users/:id/erase\` (one per member) | ${r.eraseMs.p50} ms | ${r.eraseMs.p95} ms | ≤ 500 ms |`,
  ].join('\n');
}
