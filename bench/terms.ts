// The term windows' section of `npm run bench` (BENCH_SECTIONS=terms; not in the default sections; issue 34's
// figures), on the PostgreSQL server only. 20 messes and 5,000 members (BENCH_TERMS_MEMBERS); a window over the 20
// messes whose term has begun (so the close also moves). 2,000 members (BENCH_TERMS_CHOOSERS) save their choice over
// HTTP, arriving evenly over the first minute of the window (BENCH_TERMS_SECONDS): errors and latency of
// `PUT /mess-windows/:id/choice` (target: 0 errors, p95 ≤ 50 ms). The other members' choices are then written
// straight in the table, and `POST /mess-windows/:id/close` allocates and moves (target: ≤ 5 s).
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config/app-config';
import { TokenService } from '../src/modules/auth/token.service';
import { UsersService } from '../src/modules/users';
import { api, freshServerDatabase, login, type LoadStats, round } from './support';

const MEMBERS = Number(process.env.BENCH_TERMS_MEMBERS ?? 5_000);
const CHOOSERS = Math.min(MEMBERS, Number(process.env.BENCH_TERMS_CHOOSERS ?? 2_000));
const MESSES = 20;
const SECONDS = Number(process.env.BENCH_TERMS_SECONDS ?? 60);
const ADMIN_EMAIL = 'admin@terms.local';
const ADMIN_PASSWORD = 'terms-bench-password';

export interface TermsResult {
  members: number;
  messes: number;
  choices: LoadStats;
  errors: number;
  close: { ms: number; members: number; placed: number; moved: number };
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];

export async function benchTerms(serverBase: string): Promise<TermsResult> {
  const db = await freshServerDatabase(serverBase, 'mess_bench_terms');
  let app: NestFastifyApplication | undefined;
  const sql = new Client({ connectionString: db.url });
  try {
    const config = loadConfig({
      NODE_ENV: 'production',
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0000',
      DATABASE_URL: db.url,
      LOG_LEVEL: 'silent',
      ADMIN_EMAIL,
      ADMIN_PASSWORD,
      RATE_LIMIT_PER_MINUTE: '1000000',
      NOTIFY_SCHEDULES_ENABLED: 'false',
      NOTIFY_WORKER_ENABLED: 'false',
      MESS_WINDOWS_SCHEDULE_ENABLED: 'false',
    });
    app = await createApp(config);
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as { port: number };
    const base = `http://127.0.0.1:${port}/api`;
    const admin = await login(base, ADMIN_EMAIL, ADMIN_PASSWORD);
    await sql.connect();
    // 20 messes of room enough for the members they have and a tenth more; members shared out among them.
    const perMess = Math.ceil(MEMBERS / MESSES);
    await sql.query(
      `insert into messes (id, slug, capacity)
        select ('00000000-0000-4000-9000-' || lpad(m::text, 12, '0'))::uuid, 'term-' || m, ${perMess + Math.ceil(perMess / 10)}
        from generate_series(1, ${MESSES}) m`,
    );
    await sql.query(
      `insert into users (email, password_hash, full_name, college_id, room, phone, role, status, mess_id)
        select 'm' || n || '@terms.local', 'x', 'Member ' || n, 'C' || n, 'R-' || n, null, 'student', 'approved',
               ('00000000-0000-4000-9000-' || lpad((1 + n % ${MESSES})::text, 12, '0'))::uuid
        from generate_series(1, ${MEMBERS}) n`,
    );
    const messIds = Array.from(
      { length: MESSES },
      (_, i) => `00000000-0000-4000-9000-${String(i + 1).padStart(12, '0')}`,
    );
    const now = Date.now();
    const created = await api(base, 'POST', '/mess-windows', admin, {
      term: `bench ${now}`,
      opensAt: new Date(now - 60_000).toISOString(),
      closesAt: new Date(now + 3_600_000).toISOString(),
      effectiveFrom: `${new Date(now).toISOString().slice(0, 7)}-01`,
      messes: messIds,
    });
    if (created.status !== 201) throw new Error(`window: ${created.status} ${JSON.stringify(created.body)}`);
    const windowId = created.body.window._id as string;

    // Tokens as the service issues them (no bcrypt per member).
    const { rows } = await sql.query<{ id: string }>(
      `select id from users where email like 'm%@terms.local' order by email`,
    );
    const users = await app.get(UsersService).findByIds(rows.map((r) => r.id));
    const tokens = app.get(TokenService);
    const choosers = await Promise.all(
      users.slice(0, CHOOSERS).map(async (u) => ({ id: u.id, token: await tokens.issue(u) })),
    );
    // Three distinct preferences, the first crowding four messes.
    const preferencesOf = (i: number) =>
      [0, 1 + (i % 7), 8 + (i % 12)].map((k) => messIds[(k + (i % 4)) % MESSES]);

    const samples: number[] = [];
    const statuses: Record<string, number> = {};
    // The first minute of a window: the members arrive evenly over BENCH_TERMS_SECONDS (60), each request sent at
    // its time whatever the answers before it (an open loop, as members' phones are).
    const gapMs = (SECONDS * 1000) / choosers.length;
    const started = performance.now();
    await Promise.all(
      choosers.map(async (c, i) => {
        const due = started + i * gapMs;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const t0 = performance.now();
        const res = await api(base, 'PUT', `/mess-windows/${windowId}/choice`, c.token, {
          preferences: preferencesOf(i),
        });
        samples.push(performance.now() - t0);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const sorted = samples.sort((a, b) => a - b);
    const choices: LoadStats = {
      p50: round(pct(sorted, 0.5)),
      p95: round(pct(sorted, 0.95)),
      p99: round(pct(sorted, 0.99)),
      max: round(sorted.at(-1) ?? 0),
      count: sorted.length,
      perSecond: round(sorted.length / seconds),
      statuses,
    };
    // The other members' choices straight in the table: a mess by turns first (their own now and then), then their own.
    await sql.query(
      `insert into mess_window_choices (window_id, user_id, preferences)
        select $1, u.id, jsonb_build_array(('00000000-0000-4000-9000-' || lpad((1 + (row_number() over (order by u.email))::int % ${MESSES})::text, 12, '0')), u.mess_id::text)
        from users u where u.email like 'm%@terms.local'
        on conflict do nothing`,
      [windowId],
    );
    const t0 = performance.now();
    const closed = await api(base, 'POST', `/mess-windows/${windowId}/close`, admin);
    const ms = performance.now() - t0;
    if (closed.status !== 200) throw new Error(`close: ${closed.status} ${JSON.stringify(closed.body)}`);
    const lines = closed.body.allocation.allocations as { move: string | null }[];
    const result: TermsResult = {
      members: MEMBERS,
      messes: MESSES,
      choices,
      errors: sorted.length - (statuses['200'] ?? 0),
      close: {
        ms: round(ms),
        members: closed.body.allocation.summary.members,
        placed: closed.body.allocation.summary.placed,
        moved: lines.filter((l) => l.move === 'moved').length,
      },
    };
    console.log(`[terms] ${JSON.stringify(result)}`);
    return result;
  } finally {
    await sql.end().catch(() => undefined);
    await app?.close();
    await db.drop();
  }
}

export function termsReport(r: TermsResult): string {
  return [
    '## Choosing a mess for a term (PostgreSQL server)',
    '',
    `${r.members} members in ${r.messes} messes. ${r.choices.count} members save their choice, arriving evenly ` +
      `over ${SECONDS} s (target: 0 errors, p95 ≤ 50 ms); then the close of the window with every member's choice allocates ` +
      'and, the term having begun, moves (target: ≤ 5 s).',
    '',
    '| PUT /mess-windows/:id/choice | p50 ms | p95 ms | p99 ms | per s | errors |',
    '|---|---|---|---|---|---|',
    `| ${r.choices.count} members | ${r.choices.p50} | ${r.choices.p95} | ${r.choices.p99} | ${r.choices.perSecond} | ${r.errors} |`,
    '',
    '| POST /mess-windows/:id/close | ms | members | placed | moved |',
    '|---|---|---|---|---|',
    `| allocation and moves | ${r.close.ms} | ${r.close.members} | ${r.close.placed} | ${r.close.moved} |`,
  ].join('\n');
}
