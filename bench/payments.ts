// The payments section of `npm run bench` (BENCH_SECTIONS=payments; not in the default sections): paying the mess,
// issue 21's figures, on the PostgreSQL server.
//
// 1. A fresh database; BENCH_PAY_MEMBERS (2,000) members each with a pending UPI claim (seeded as the tables' owner).
// 2. The treasurer imports a bank statement of BENCH_STATEMENT_ROWS (5,000) rows over HTTP: one row per claim (all
//    matched) and the rest credits no claim names (`no claim`); then the same file again (nothing new). Target: the
//    first import ≤ 2 s (one transaction, set-based matching).
// 3. BENCH_WEBHOOKS (2,000) signed `payment.captured` webhooks, each for its own order: 50 from one sender, the rest
//    from 20 concurrent senders (autocannon, 20 connections): p95 ≤ 20 ms; then waits until every one is recorded.
//
// The service runs as it is deployed: the built service in its own process (LOG_LEVEL info), the load generator
// (autocannon) in this one, on the same machine.
import autocannon from 'autocannon';
import * as bcrypt from 'bcrypt';
import { createHmac } from 'node:crypto';
import { loadavg } from 'node:os';
import { Client } from 'pg';
import { addDays, localParts } from '../src/common/time/dates';
import { FIRST_MESS_ID } from '../src/common/tenancy/mess-scope';
import { join } from 'node:path';
import { freshServerDatabase, loadStatsOf, login, round, spawnAndWait, type LoadStats } from './support';

const MEMBERS = Number(process.env.BENCH_PAY_MEMBERS ?? 2000);
const STATEMENT_ROWS = Number(process.env.BENCH_STATEMENT_ROWS ?? 5000);
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 2000);
const SENDERS = 20;
const SEQUENTIAL = 50;
const PASSWORD = 'demo-password';
const ADMIN_EMAIL = 'admin@pay.local';
const TREASURER_EMAIL = 'treasurer@pay.local';
const WEBHOOK_SECRET = 'bench-webhook-secret-0123456789';

export interface PaymentsResult {
  when: string;
  load: [number, number];
  members: number;
  rows: number;
  firstImportMs: number;
  firstImport: { matched: number; alreadyRecorded: number; unmatched: number };
  secondImportMs: number;
  secondImport: { matched: number; alreadyRecorded: number; unmatched: number };
  webhooks: LoadStats;
  /** The first SEQUENTIAL webhooks, one at a time. */
  alone: LoadStats;
  recorded: number;
  /** From the last webhook's answer until every event was recorded. */
  recordedAfterMs: number;
}

const TIMEZONE = 'Asia/Kolkata';

const utrOf = (i: number) => String(100_000_000_000 + i);

export async function benchPayments(serverBase: string): Promise<PaymentsResult> {
  const { url, drop } = await freshServerDatabase(serverBase, 'bench_payments');
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
      LOGIN_RATE_LIMIT_PER_MINUTE: '100000',
      LOGIN_RATE_LIMIT_PER_EMAIL: '100000',
      BCRYPT_QUEUE_TIMEOUT_MS: '60000',
      MESS_TIMEZONE: TIMEZONE,
      PAY_KEY_ID: 'rzp_bench_0001',
      PAY_KEY_SECRET: 'bench-key-secret-0123456789',
      PAY_WEBHOOK_SECRET: WEBHOOK_SECRET,
      PAY_API_BASE_URL: 'http://127.0.0.1:9',
    },
    '/api/live',
    // BENCH_PROFILE=<dir>: the service writes a V8 CPU profile there when it stops (scripts/cpuprofile-top.mjs).
    process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [],
  );
  const base = `${service.base}/api`;
  const owner = new Client({ connectionString: url });
  await owner.connect();
  try {
    const today = localParts(new Date(), TIMEZONE).date;
    const date = addDays(today, -1);
    const hash = await bcrypt.hash(PASSWORD, 10);
    await owner.query(
      `insert into users (email, password_hash, full_name, college_id, room, role, status, mess_id)
       values ('${TREASURER_EMAIL}', '${hash}', 'Bench Treasurer', 'T0001', 'Office', 'treasurer', 'approved',
               '${FIRST_MESS_ID}')`,
    );
    await owner.query(
      `insert into users (email, password_hash, full_name, college_id, room, role, status, mess_id)
       select 'p' || lpad(n::text, 5, '0') || '@pay.local', '${hash}', 'Member ' || n, 'P' || lpad(n::text, 5, '0'),
              'R-' || (100 + n % 400), 'student', 'approved', '${FIRST_MESS_ID}'
       from generate_series(1, ${MEMBERS}) n`,
    );
    // Each member's pending claim: UTR 1000000000nn, 1,000 to 3,000 rupees.
    await owner.query(
      `insert into payment_claims (mess_id, user_id, amount_paise, date, utr)
       select '${FIRST_MESS_ID}', u.id, 100000 + (row_number() over (order by u.email)) % 2000 * 100, '${date}',
              (100000000000 + row_number() over (order by u.email))::text
       from users u where u.email like 'p%@pay.local'`,
    );
    const claims = (
      await owner.query<{ utr: string; amount_paise: string }>('select utr, amount_paise from payment_claims')
    ).rows;
    await owner.query('analyze');
    const lines = ['Date,Narration,Ref No,Amount,Balance'];
    for (const c of claims) {
      const rupees = (Number(c.amount_paise) / 100).toLocaleString('en-IN', { minimumFractionDigits: 2 });
      lines.push(`${date},"UPI/${c.utr}/credit",${c.utr},"${rupees}",0`);
    }
    for (let i = claims.length; lines.length <= STATEMENT_ROWS; i += 1)
      lines.push(`${date},"NEFT credit ${i}",${utrOf(500_000 + i)},"1,234.50",0`);
    const csv = `\uFEFF${lines.join('\r\n')}\r\n`;
    const treasurer = `Bearer ${await login(base, TREASURER_EMAIL, PASSWORD)}`;
    const load0 = loadavg()[0];
    const importOnce = async () => {
      const started = performance.now();
      const res = await fetch(`${base}/accounts/bank-statement`, {
        method: 'POST',
        headers: { authorization: treasurer, 'content-type': 'text/csv' },
        body: csv,
      });
      const ms = round(performance.now() - started);
      if (res.status !== 200) throw new Error(`statement import: ${res.status} ${await res.text()}`);
      const body = (await res.json()) as { matched: number; alreadyRecorded: number; unmatched: unknown[] };
      return {
        ms,
        counts: {
          matched: body.matched,
          alreadyRecorded: body.alreadyRecorded,
          unmatched: body.unmatched.length,
        },
      };
    };
    const first = await importOnce();
    await receiptsSettled(owner, first.counts.matched);
    const second = await importOnce();

    // The gateway: an order per webhook (bound to a member), each captured once, 20 deliveries at a time.
    const members = (
      await owner.query<{ id: string }>(
        `select id from users where email like 'p%@pay.local' order by email limit ${WEBHOOKS}`,
      )
    ).rows;
    await owner.query(
      `insert into gateway_orders (mess_id, user_id, gateway_order_id, amount_paise)
       select '${FIRST_MESS_ID}', u, 'order_bench' || lpad(i::text, 6, '0'), 50000
       from unnest($1::uuid[]) with ordinality as t(u, i)`,
      [members.map((m) => m.id)],
    );
    const before = Number(
      (await owner.query<{ n: string }>("select count(*) as n from account_entries where kind = 'payment'"))
        .rows[0].n,
    );
    const bodies = members.map((_, index) => {
      const n = String(index + 1).padStart(6, '0');
      return JSON.stringify({
        entity: 'event',
        event: 'payment.captured',
        payload: {
          payment: {
            entity: {
              id: `pay_bench${n}`,
              order_id: `order_bench${n}`,
              amount: 50000,
              currency: 'INR',
              method: 'upi',
              status: 'captured',
              created_at: Math.floor(Date.now() / 1000),
            },
          },
        },
      });
    });
    const webhook = `${base}/payments/gateway/webhook`;
    // One sender first (the cost of one webhook alone), then the rest 20 at once.
    const alone = await deliver(webhook, bodies.slice(0, SEQUENTIAL), 1);
    const webhooks = await deliver(webhook, bodies.slice(SEQUENTIAL), SENDERS);
    const answered = performance.now();
    await inboxSettled(owner, bodies.length);
    const recordedAfterMs = round(performance.now() - answered);
    const after = Number(
      (await owner.query<{ n: string }>("select count(*) as n from account_entries where kind = 'payment'"))
        .rows[0].n,
    );
    if (webhooks.statuses['200'] + alone.statuses['200'] !== bodies.length)
      throw new Error(`webhooks: ${JSON.stringify(webhooks.statuses)}`);
    return {
      when: new Date().toISOString(),
      load: [round(load0), round(loadavg()[0])],
      members: claims.length,
      rows: lines.length - 1,
      firstImportMs: first.ms,
      firstImport: first.counts,
      secondImportMs: second.ms,
      secondImport: second.counts,
      webhooks,
      alone,
      recorded: after - before,
      recordedAfterMs,
    };
  } finally {
    // Each step on its own: the database is dropped even when a step before fails.
    await owner.end().catch(() => undefined);
    await service.stop().catch(() => undefined);
    await drop();
  }
}

/** Delivers each body once, signed, over `connections` connections; every latency kept. */
async function deliver(url: string, bodies: string[], connections: number): Promise<LoadStats> {
  const samples: number[] = [];
  const statuses: Record<string, number> = {};
  let next = 0;
  const began = performance.now();
  await new Promise<void>((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections,
        amount: bodies.length,
        requests: [
          {
            method: 'POST',
            setupRequest: (req: autocannon.Request) => {
              const body = bodies[next++ % bodies.length];
              return {
                ...req,
                body,
                headers: {
                  'content-type': 'application/json',
                  'x-razorpay-signature': createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex'),
                },
              };
            },
          },
        ],
      },
      (error) => (error ? reject(error) : resolve()),
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      samples.push(ms);
      statuses[status] = (statuses[status] ?? 0) + 1;
    });
  });
  return loadStatsOf({ samples, statuses, seconds: (performance.now() - began) / 1000 });
}

/** Waits until the gateway's inbox holds `events` events and every one is processed (at most two minutes). */
async function inboxSettled(owner: Client, events: number): Promise<void> {
  let last = '';
  for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
    const [{ kept, processed }] = (
      await owner.query<{ kept: number; processed: number }>(
        `select count(*)::int as kept, count(processed_at)::int as processed from gateway_events`,
      )
    ).rows;
    if (kept >= events && processed === kept) return;
    last = `${kept} kept, ${processed} processed`;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the webhooks' events were not all recorded within 2 minutes (${last})`);
}

/**
 * Waits until the import's PAYMENT_RECEIVED receipts are all created and none waits for delivery (at most two
 * minutes): the webhooks are measured after them, not while 2,000 receipts are being sent.
 */
async function receiptsSettled(owner: Client, receipts: number): Promise<void> {
  let last = '';
  for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
    const [{ created, waiting }] = (
      await owner.query<{ created: number; waiting: number }>(
        `select count(*) filter (where type = 'PAYMENT_RECEIVED')::int as created,
                count(*) filter (where status in ('queued', 'retrying'))::int as waiting
         from notifications`,
      )
    ).rows;
    if (created >= receipts && waiting === 0) return;
    last = `${created} created, ${waiting} waiting`;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the statement's PAYMENT_RECEIVED receipts did not settle within 2 minutes (${last})`);
}

/** The report's section. */
export function paymentsReport(r: PaymentsResult): string[] {
  const verdict = (ok: boolean) => (ok ? 'met' : 'missed');
  return [
    '### Paying the mess (PostgreSQL server)',
    '',
    `${r.when}; load average ${r.load[0]} → ${r.load[1]}.`,
    '',
    '| measure | figure | target | |',
    '|---|---|---|---|',
    `| bank statement of ${r.rows} rows against ${r.members} pending claims (\`POST /api/accounts/bank-statement\`): matched ${r.firstImport.matched}, unmatched ${r.firstImport.unmatched} | ${r.firstImportMs} ms | ≤ 2,000 ms | ${verdict(r.firstImportMs <= 2000)} |`,
    `| the same statement again: matched ${r.secondImport.matched}, already recorded ${r.secondImport.alreadyRecorded} | ${r.secondImportMs} ms | | |`,
    `| \`POST /api/payments/gateway/webhook\`, ${r.webhooks.count} signed \`payment.captured\` (each its own order), ${SENDERS} at once: p50 / p95 / p99 (max); ${r.recorded} payments recorded | ${r.webhooks.p50} / ${r.webhooks.p95} / ${r.webhooks.p99} (${r.webhooks.max}) ms | p95 ≤ 20 ms | ${verdict(r.webhooks.p95 <= 20)} |`,
    `| the same, one sender (the first ${r.alone.count}): p50 / p95 | ${r.alone.p50} / ${r.alone.p95} ms | | |`,
    `| every webhook's payment recorded (the inbox empty), after the last answer | ${r.recordedAfterMs} ms (${round(r.webhooks.perSecond)} webhooks/s answered) | | |`,
    '',
  ];
}
