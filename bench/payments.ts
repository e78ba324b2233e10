// The payments section of `npm run bench` (BENCH_SECTIONS=payments; not in the default sections): paying the mess,
// issue 21's figures, on the PostgreSQL server.
//
// 1. A fresh database; BENCH_PAY_MEMBERS (2,000) members each with a pending UPI claim (seeded as the tables' owner).
// 2. The treasurer imports a bank statement of BENCH_STATEMENT_ROWS (5,000) rows over HTTP: one row per claim (all
//    matched) and the rest credits no claim names (`no claim`); then the same file again (nothing new). Target: the
//    first import ≤ 2 s (one transaction, set-based matching).
// 3. BENCH_WEBHOOKS (400) signed `payment.captured` webhooks, each for its own order, delivered by 20 concurrent
//    senders: p95 ≤ 20 ms.
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import * as bcrypt from 'bcrypt';
import { createHmac } from 'node:crypto';
import { loadavg } from 'node:os';
import { Client } from 'pg';
import { addDays, localParts } from '../src/common/time/dates';
import { FIRST_MESS_ID } from '../src/common/tenancy/mess-scope';
import { loadConfig } from '../src/config/app-config';
import { createApp } from '../src/app';
import type { LoadRequest } from './client-worker';
import { freshServerDatabase, HttpClient, login, round, type LoadStats } from './support';

const MEMBERS = Number(process.env.BENCH_PAY_MEMBERS ?? 2000);
const STATEMENT_ROWS = Number(process.env.BENCH_STATEMENT_ROWS ?? 5000);
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 400);
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
}

const utrOf = (i: number) => String(100_000_000_000 + i);

export async function benchPayments(serverBase: string): Promise<PaymentsResult> {
  const { url, drop } = await freshServerDatabase(serverBase, 'bench_payments');
  const config = loadConfig({
    NODE_ENV: 'production',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0000',
    DATABASE_URL: url,
    LOG_LEVEL: 'silent',
    ADMIN_EMAIL,
    ADMIN_PASSWORD: PASSWORD,
    RATE_LIMIT_PER_MINUTE: '1000000',
    LOGIN_RATE_LIMIT_PER_MINUTE: '100000',
    LOGIN_RATE_LIMIT_PER_EMAIL: '100000',
    BCRYPT_QUEUE_TIMEOUT_MS: '60000',
    PAY_KEY_ID: 'rzp_bench_0001',
    PAY_KEY_SECRET: 'bench-key-secret-0123456789',
    PAY_WEBHOOK_SECRET: WEBHOOK_SECRET,
    PAY_API_BASE_URL: 'http://127.0.0.1:9',
  });
  const app: NestFastifyApplication = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  const base = `http://127.0.0.1:${port}/api`;
  const owner = new Client({ connectionString: url });
  await owner.connect();
  const client = new HttpClient(() => undefined);
  try {
    const today = localParts(new Date(), config.messTimezone).date;
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
    const requests: LoadRequest[] = members.map((_, index) => {
      const i = index + 1;
      const body = JSON.stringify({
        entity: 'event',
        event: 'payment.captured',
        payload: {
          payment: {
            entity: {
              id: `pay_bench${String(i).padStart(6, '0')}`,
              order_id: `order_bench${String(i).padStart(6, '0')}`,
              amount: 50000,
              currency: 'INR',
              method: 'upi',
              status: 'captured',
              created_at: Math.floor(Date.now() / 1000),
            },
          },
        },
      });
      return {
        method: 'POST',
        url: `${base}/payments/gateway/webhook`,
        headers: {
          'content-type': 'application/json',
          'x-razorpay-signature': createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex'),
        },
        body,
      };
    });
    // One sender first (the cost of one webhook alone), then the rest 20 at once.
    const alone = await client.load({ requests: requests.slice(0, SEQUENTIAL), concurrency: 1, thinkMs: 0 });
    const webhooks = await client.load({
      requests: requests.slice(SEQUENTIAL),
      concurrency: SENDERS,
      thinkMs: 0,
    });
    const after = Number(
      (await owner.query<{ n: string }>("select count(*) as n from account_entries where kind = 'payment'"))
        .rows[0].n,
    );
    if (webhooks.statuses['200'] + alone.statuses['200'] !== requests.length)
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
    };
  } finally {
    // Each step on its own: the database is dropped even when a step before fails.
    await client.close().catch(() => undefined);
    await owner.end().catch(() => undefined);
    await app.close().catch(() => undefined);
    await drop();
  }
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
    '',
  ];
}
