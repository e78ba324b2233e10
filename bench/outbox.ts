// The outbox section of `npm run bench` (BENCH_SECTIONS=outbox; not in the default sections): what a durable event
// costs a write (issue 45), on the PostgreSQL server. Run from the commit before the outbox too (copy this file):
// the same writes, their events then published after the commit in process.
//
// 1. A fresh database; BENCH_OUTBOX_MEMBERS (200) approved members and a treasurer (seeded as the tables' owner).
// 2. BENCH_OUTBOX_PAYMENTS (3,000) payments recorded over HTTP (`POST /accounts/:id/payments`, each promising a
//    PAYMENT_RECEIVED receipt), 20 connections: answered per second, latency, the CPU per write of the service and
//    of the database's backends; then how long until every receipt exists (notifications created from the events).
//
// The service runs as it is deployed: the built service in its own process, autocannon in this one.
import autocannon from 'autocannon';
import * as bcrypt from 'bcrypt';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { FIRST_MESS_ID } from '../src/common/tenancy/mess-scope';
import { addDays, localParts } from '../src/common/time/dates';
import { freshServerDatabase, login, procCpuMs, round, spawnAndWait, statsOf } from './support';

const MEMBERS = Number(process.env.BENCH_OUTBOX_MEMBERS ?? 200);
const PAYMENTS = Number(process.env.BENCH_OUTBOX_PAYMENTS ?? 3000);
const CONNECTIONS = 20;
const PASSWORD = 'demo-password';
const TREASURER_EMAIL = 'treasurer@outbox.local';
const TIMEZONE = 'Asia/Kolkata';

export interface OutboxResult {
  when: string;
  commit: string;
  load: [number, number];
  payments: number;
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
  statuses: Record<string, number>;
  /** CPU per answered write, ms, until every receipt existed: the service's process and the database's backends. */
  cpu: { service: number; database: number };
  /** From the last answer until every receipt was created. */
  receiptsAfterMs: number;
  /** Rows the outbox holds at the end (0 before the outbox: no table). */
  outboxRows: number;
}

export async function benchOutbox(serverBase: string): Promise<OutboxResult> {
  const { url, drop } = await freshServerDatabase(serverBase, 'bench_outbox');
  const service = await spawnAndWait(
    join(__dirname, '..', 'src', 'main.js'),
    {
      NODE_ENV: 'production',
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0000',
      DATABASE_URL: url,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      RATE_LIMIT_PER_MINUTE: '1000000',
      LOGIN_RATE_LIMIT_PER_MINUTE: '100000',
      MESS_TIMEZONE: TIMEZONE,
    },
    '/api/live',
  );
  const base = `${service.base}/api`;
  const owner = new Client({ connectionString: url });
  await owner.connect();
  try {
    const date = addDays(localParts(new Date(), TIMEZONE).date, -1);
    const hash = await bcrypt.hash(PASSWORD, 10);
    await owner.query(
      `insert into users (email, password_hash, full_name, college_id, room, role, status, mess_id)
       values ('${TREASURER_EMAIL}', '${hash}', 'Bench Treasurer', 'T0001', 'Office', 'treasurer', 'approved',
               '${FIRST_MESS_ID}')`,
    );
    const members = (
      await owner.query<{ id: string }>(
        `insert into users (email, password_hash, full_name, college_id, room, role, status, mess_id)
         select 'o' || lpad(n::text, 5, '0') || '@outbox.local', '${hash}', 'Member ' || n, 'O' || lpad(n::text, 5, '0'),
                'R-' || (100 + n % 400), 'student', 'approved', '${FIRST_MESS_ID}'
         from generate_series(1, ${MEMBERS}) n
         returning id`,
      )
    ).rows.map((r) => r.id);
    await owner.query('analyze');
    const treasurer = `Bearer ${await login(base, TREASURER_EMAIL, PASSWORD)}`;
    const backends = async () =>
      (
        await owner.query<{ pid: number }>(
          `select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
        )
      ).rows.map((r) => r.pid);
    const pidsBefore = await backends();
    const databaseBefore = new Map(pidsBefore.map((pid) => [pid, procCpuMs(pid)]));
    const serviceBefore = procCpuMs(service.child.pid!);
    const load0 = loadavg()[0];
    const samples: number[] = [];
    const statuses: Record<string, number> = {};
    let next = 0;
    const began = performance.now();
    await new Promise<void>((resolve, reject) => {
      const instance = autocannon(
        {
          url: base,
          connections: CONNECTIONS,
          amount: PAYMENTS,
          requests: [
            {
              method: 'POST',
              setupRequest: (req: autocannon.Request) => {
                const n = next++;
                return {
                  ...req,
                  path: `/api/accounts/${members[n % members.length]}/payments`,
                  body: JSON.stringify({ amount: 100 + (n % 50), date, method: 'upi', reference: `OB-${n}` }),
                  headers: { 'content-type': 'application/json', authorization: treasurer },
                };
              },
            },
          ],
        },
        (error) => (error ? reject(error) : resolve()),
      );
      instance.on('response', (_client, statusCode, _bytes, responseTime) => {
        samples.push(responseTime);
        statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
      });
    });
    const seconds = (performance.now() - began) / 1000;
    const answered = performance.now();
    for (const deadline = Date.now() + 180_000; ; await new Promise((r) => setTimeout(r, 100))) {
      const [{ receipts }] = (
        await owner.query<{ receipts: number }>(
          `select count(*)::int as receipts from notifications where type = 'PAYMENT_RECEIVED'`,
        )
      ).rows;
      if (receipts >= PAYMENTS) break;
      if (Date.now() > deadline) throw new Error(`only ${receipts} of ${PAYMENTS} receipts within 3 minutes`);
    }
    const receiptsAfterMs = round(performance.now() - answered);
    // The CPU until every receipt exists: the relay's work after the last answer counts too.
    const serviceUsed = procCpuMs(service.child.pid!) - serviceBefore;
    const pidsAfter = await backends();
    const databaseUsed = pidsAfter.reduce((sum, pid) => sum + procCpuMs(pid) - (databaseBefore.get(pid) ?? 0), 0);
    const outboxRows = await owner
      .query<{ n: number }>('select count(*)::int as n from outbox_events')
      .then((r) => r.rows[0].n)
      .catch(() => 0);
    const sorted = [...samples].sort((a, b) => a - b);
    const ok = statuses['201'] ?? statuses['200'] ?? 0;
    return {
      when: new Date().toISOString(),
      commit: process.env.BENCH_COMMIT ?? '',
      load: [round(load0), round(loadavg()[0])],
      payments: PAYMENTS,
      perSecond: round(samples.length / seconds),
      ...statsOf(sorted),
      p99: round(sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)]),
      statuses,
      cpu: { service: round(serviceUsed / (ok || 1)), database: round(databaseUsed / (ok || 1)) },
      receiptsAfterMs,
      outboxRows,
    };
  } finally {
    await owner.end();
    await service.stop();
    await drop();
  }
}

export function outboxReport(r: OutboxResult): string {
  return [
    '### The outbox: payments recorded, each promising a receipt (PostgreSQL server)',
    '',
    `${r.when}${r.commit ? ` (${r.commit})` : ''}; load average ${r.load[0]} → ${r.load[1]}.`,
    '',
    '| payments | answered/s | p50 / p95 / p99 ms | CPU per write until its receipt: service / database ms | receipts all created after | outbox rows |',
    '|---:|---:|---|---|---:|---:|',
    `| ${r.payments} | ${r.perSecond} | ${r.p50} / ${r.p95} / ${r.p99} | ${r.cpu.service} / ${r.cpu.database} | ${r.receiptsAfterMs} ms | ${r.outboxRows} |`,
    '',
    `Statuses: ${JSON.stringify(r.statuses)}.`,
  ].join('\n');
}
