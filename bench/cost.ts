// The per-request cost section of `npm run bench` (BENCH_SECTIONS=cost for it alone, or `npm run bench:cost`):
//
// 1. A/B on the PostgreSQL server: the built service (its own process) against bench/bare-handler.ts (its own
//    process), both on one fresh seeded database, one authenticated `GET /api/meals?date=D` with 32 connections,
//    alternating rounds (COST_ROUNDS × COST_SECONDS, default 2 × 15 s each, after a 3 s warm-up of each): req/s,
//    p50/p99, and the CPU each server process spent per request (utime + stime from /proc/<pid>/stat).
// 2. Login storm, on each engine of BENCH_ENGINES: the same read at 50 req/s, with and without 40 clients logging in
//    with correct passwords as fast as they are answered (so ~40 logins are always waiting or hashing), alternating
//    idle and storm phases (2 × 10 s each); the read's p99 during the storm over its idle p99.
//
// The load generator (autocannon) runs in this process, on the same machine: every figure includes that.
// COST_SERVICE=<path of a built main.js> measures another build of the service (a before/after comparison);
// COST_PROFILE=<dir> has each service process write a CPU profile there; COST_LOG_LEVEL (info) sets its LOG_LEVEL.
import autocannon from 'autocannon';
import { spawnSync } from 'node:child_process';
import { Client } from 'pg';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { localParts } from '../src/common/time/dates';
import { seedDemo } from '../src/database/seed-demo';
import {
  api,
  freshServerDatabase,
  login as loginAt,
  messSetupBody,
  openForSeeding,
  procCpuMs,
  spawnAndWait,
  type Spawned,
} from './support';

const root = join(__dirname, '..', '..');
const ROUNDS = Number(process.env.COST_ROUNDS ?? 2);
const SECONDS = Number(process.env.COST_SECONDS ?? 15);
const CONNECTIONS = 32;
const STORM_LOGINS = 40;
const STORM_READ_RATE = 50;
const STORM_SECONDS = Number(process.env.COST_STORM_SECONDS ?? 10);
const STORM_ROUNDS = Number(process.env.COST_STORM_ROUNDS ?? 2);
const JWT_SECRET = randomBytes(32).toString('hex');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round1 = (n: number) => Math.round(n * 10) / 10;

export interface ServerRun {
  reqPerSec: number;
  p50: number;
  p99: number;
  /** Milliseconds of CPU (user + system) of the server process per answered request. */
  cpuMsPerRequest: number;
  requests: number;
  non2xx: number;
}
export interface AbResult {
  rounds: { service: ServerRun; bare: ServerRun }[];
  service: ServerRun;
  bare: ServerRun;
  throughputRatio: number;
  cpuRatio: number;
  /**
   * The service with its mess set per transaction (DATABASE_POOL_MODE=transaction), directly and through pgbouncer
   * in transaction mode (scripts/pgbouncer.sh), measured in the same alternation: mean and ratio to the bare handler.
   */
  perTransaction?: { label: string; run: ServerRun; throughputRatio: number; cpuRatio: number }[];
}
export interface StormResult {
  engine: string;
  idle: { p50: number; p99: number; requests: number };
  storm: { p50: number; p99: number; requests: number };
  ratio: number;
  /** Login answers during the storm phases, by status. */
  logins: Record<number, number>;
  readStatuses: Record<number, number>;
}
export interface CostResult {
  when: string;
  loadBefore: number;
  loadAfter: number;
  ab?: AbResult;
  /** The same A/B with the load shared among members of five messes (the session's mess switches at checkouts). */
  abFiveMesses?: AbResult;
  storms: StormResult[];
}

/** The built service (compiled with the bench, dist-bench/src) on the server engine or an embedded data directory. */
/** How the service reaches the server: directly (its default, the session pool mode) or with the mess per transaction. */
interface Reach {
  directUrl?: string;
  poolMode?: 'session' | 'transaction';
}

function startService(database: { url: string } | { dataDir: string }, reach: Reach = {}): Promise<Spawned> {
  return spawnAndWait(
    process.env.COST_SERVICE ?? join(root, 'dist-bench', 'src', 'main.js'),
    {
      // Production needs a server URL; the embedded engine runs as a developer would start it.
      NODE_ENV: 'url' in database ? 'production' : 'development',
      ...('url' in database ? { DATABASE_URL: database.url } : { DATA_DIR: database.dataDir }),
      ...(reach.directUrl ? { DATABASE_DIRECT_URL: reach.directUrl } : {}),
      ...(reach.poolMode ? { DATABASE_POOL_MODE: reach.poolMode } : {}),
      JWT_SECRET,
      // The default level: a log line per request is part of what a request costs.
      LOG_LEVEL: process.env.COST_LOG_LEVEL ?? 'info',
      // One client address makes all the load: the limits stay on (their cost is measured), their ceilings up.
      RATE_LIMIT_PER_MINUTE: '1000000',
      LOGIN_RATE_LIMIT_PER_MINUTE: '100000',
      NOTIFY_WORKER_ENABLED: 'false',
      NOTIFY_SCHEDULES_ENABLED: 'false',
    },
    '/api/live',
    // COST_PROFILE=<dir>: each service process writes a V8 CPU profile there when it stops (read it with
    // scripts/cpuprofile-top.mjs).
    process.env.COST_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.COST_PROFILE}`] : [],
  );
}

function startBare(url: string): Promise<Spawned> {
  return spawnAndWait(
    join(root, 'dist-bench', 'bench', 'bare-handler.js'),
    { DATABASE_URL: url, JWT_SECRET },
    '/api/meals',
  );
}

/** Logs in on a server whose base URL has no `/api`. */
const login = (base: string, email: string, password: string) => loginAt(`${base}/api`, email, password);

/** `tokens`: one member's, or one per mess, handed out to the connections in turn (each keeps its member). */
async function run(server: Spawned, path: string, tokens: string[], seconds: number): Promise<ServerRun> {
  const before = procCpuMs(server.child.pid!);
  let next = 0;
  const result = await autocannon({
    url: `${server.base}${path}`,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${tokens[0]}` },
    setupClient: (client) => client.setHeaders({ authorization: `Bearer ${tokens[next++ % tokens.length]}` }),
  });
  const cpu = procCpuMs(server.child.pid!) - before;
  const answered = result.requests.total;
  return {
    reqPerSec: Math.round(answered / (result.duration || seconds)),
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuMsPerRequest: answered ? Math.round((cpu / answered) * 1000) / 1000 : 0,
    requests: answered,
    non2xx: result.non2xx + result.errors + result.timeouts,
  };
}

function mean(runs: ServerRun[]): ServerRun {
  const avg = (f: (r: ServerRun) => number) => runs.reduce((a, r) => a + f(r), 0) / runs.length;
  return {
    reqPerSec: Math.round(avg((r) => r.reqPerSec)),
    p50: round1(avg((r) => r.p50)),
    p99: round1(avg((r) => r.p99)),
    cpuMsPerRequest: Math.round(avg((r) => r.cpuMsPerRequest) * 1000) / 1000,
    requests: runs.reduce((a, r) => a + r.requests, 0),
    non2xx: runs.reduce((a, r) => a + r.non2xx, 0),
  };
}

async function abRounds(
  dbUrl: string,
  path: string,
  emails: string[],
  password: string,
  pooledUrl?: string,
): Promise<AbResult> {
  const service = await startService({ url: dbUrl });
  const bare = await startBare(dbUrl);
  // The mess per transaction: directly (what it costs in itself), and behind pgbouncer (what a pooled deployment pays).
  const others: { label: string; server: Spawned }[] = [
    {
      label: 'service, mess per transaction',
      server: await startService({ url: dbUrl }, { poolMode: 'transaction' }),
    },
  ];
  if (pooledUrl)
    others.push({
      label: 'service through pgbouncer (transaction mode)',
      server: await startService({ url: pooledUrl }, { poolMode: 'transaction', directUrl: dbUrl }),
    });
  try {
    const tokens = await Promise.all(emails.map((email) => login(service.base, email, password)));
    await run(service, path, tokens, 3);
    await run(bare, path, tokens, 3);
    for (const other of others) await run(other.server, path, tokens, 3);
    const rounds: AbResult['rounds'] = [];
    const otherRuns = others.map(() => [] as ServerRun[]);
    for (let i = 0; i < ROUNDS; i += 1) {
      // Alternate which goes first, so a drift of the machine's load falls on both.
      const first = i % 2 === 0 ? service : bare;
      const second = first === service ? bare : service;
      const a = await run(first, path, tokens, SECONDS);
      const b = await run(second, path, tokens, SECONDS);
      const pair = first === service ? { service: a, bare: b } : { service: b, bare: a };
      rounds.push(pair);
      for (const [k, other] of others.entries()) otherRuns[k].push(await run(other.server, path, tokens, SECONDS));
      process.stdout.write(
        `[cost] round ${i + 1}: service ${pair.service.reqPerSec} req/s p99 ${pair.service.p99} ms ${pair.service.cpuMsPerRequest} ms CPU/req; ` +
          `bare ${pair.bare.reqPerSec} req/s p99 ${pair.bare.p99} ms ${pair.bare.cpuMsPerRequest} ms CPU/req` +
          others.map((o, k) => `; ${o.label} ${otherRuns[k][i].reqPerSec} req/s ${otherRuns[k][i].cpuMsPerRequest} ms CPU/req`).join('') +
          '\n',
      );
    }
    const s = mean(rounds.map((r) => r.service));
    const b = mean(rounds.map((r) => r.bare));
    const ratio = (x: number, y: number) => Math.round((x / y) * 100) / 100;
    return {
      rounds,
      service: s,
      bare: b,
      throughputRatio: ratio(s.reqPerSec, b.reqPerSec),
      cpuRatio: ratio(s.cpuMsPerRequest, b.cpuMsPerRequest),
      perTransaction: others.map((o, k) => {
        const m = mean(otherRuns[k]);
        return {
          label: o.label,
          run: m,
          throughputRatio: ratio(m.reqPerSec, b.reqPerSec),
          cpuRatio: ratio(m.cpuMsPerRequest, b.cpuMsPerRequest),
        };
      }),
    };
  } finally {
    await service.stop();
    await bare.stop();
    for (const other of others) await other.server.stop();
  }
}

/** Four more messes (`cost-2`…), each with one of `emails` moved into it, made through the service as its admin. */
async function spreadOverMesses(
  dbUrl: string,
  summary: { adminEmail: string; adminPassword: string },
  emails: string[],
): Promise<void> {
  const service = await startService({ url: dbUrl });
  try {
    const base = `${service.base}/api`;
    const admin = await login(service.base, summary.adminEmail, summary.adminPassword);
    const call = async (path: string, body: unknown) => {
      const res = await api(base, 'POST', path, admin, body);
      if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    };
    const ids = new Client({ connectionString: dbUrl });
    await ids.connect();
    const { rows } = await ids
      .query<{ id: string; email: string }>('select id, email from users where email = any($1)', [emails])
      .finally(() => ids.end());
    for (const [i, email] of emails.entries()) {
      const slug = `cost-${i + 2}`;
      await call('/messes', messSetupBody(`Cost Mess ${i + 2}`, { slug }));
      const id = rows.find((row) => row.email === email)?.id;
      if (!id) throw new Error(`no member ${email}`);
      await call(`/messes/${slug}/members`, { userIds: [id] });
    }
  } finally {
    await service.stop();
  }
}

/** pgbouncer in transaction mode in front of `serverBase`'s server (scripts/pgbouncer.sh), or undefined without one. */
function startPooler(dbUrl: string): { url: string; stop: () => void } | undefined {
  const port = '6440';
  const user = decodeURIComponent(new URL(dbUrl).username || 'postgres');
  const started = spawnSync('bash', [join(root, 'scripts', 'pgbouncer.sh'), 'start', user, port], {
    encoding: 'utf8',
  });
  if (started.status !== 0) {
    process.stdout.write(`[cost] no pgbouncer (${started.stderr.trim()}): the pooled figure is not measured\n`);
    return undefined;
  }
  const pooled = new URL(dbUrl);
  pooled.hostname = '127.0.0.1';
  pooled.port = port;
  return {
    url: pooled.toString(),
    stop: () => void spawnSync('bash', [join(root, 'scripts', 'pgbouncer.sh'), 'stop', port]),
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] : 0;

/** The menu read at a steady 50 req/s for `seconds`, with every latency kept. */
async function steadyRead(base: string, path: string, token: string, seconds: number) {
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  await new Promise<void>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${base}${path}`,
        connections: 10,
        overallRate: STORM_READ_RATE,
        duration: seconds,
        headers: { authorization: `Bearer ${token}` },
      },
      (error) => (error ? reject(error) : resolve()),
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      latencies.push(ms);
      statuses[status] = (statuses[status] ?? 0) + 1;
    });
  });
  return { latencies, statuses };
}

/** Logins with correct passwords from `STORM_LOGINS` clients, each sending its next as soon as it is answered. */
function loginStorm(base: string, emails: string[], password: string) {
  let running = true;
  const statuses: Record<number, number> = {};
  const loops = emails.slice(0, STORM_LOGINS).map(async (email) => {
    while (running) {
      const res = await fetch(`${base}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      }).catch(() => undefined);
      if (res) await res.arrayBuffer();
      const status = res?.status ?? 0;
      statuses[status] = (statuses[status] ?? 0) + 1;
      // A 503 says when to come back; a storm of real people would not hammer faster than that.
      if (status === 503) await sleep(Number(res?.headers.get('retry-after') ?? 1) * 1000);
    }
  });
  return {
    statuses,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

async function storm(
  engine: string,
  service: Spawned,
  path: string,
  emails: string[],
  password: string,
): Promise<StormResult> {
  const token = await login(service.base, emails[0], password);
  await steadyRead(service.base, path, token, 3);
  const idle: number[] = [];
  const stormed: number[] = [];
  const logins: Record<number, number> = {};
  const readStatuses: Record<number, number> = {};
  const add = (into: Record<number, number>, from: Record<number, number>) => {
    for (const [k, v] of Object.entries(from)) into[Number(k)] = (into[Number(k)] ?? 0) + v;
  };
  for (let i = 0; i < STORM_ROUNDS; i += 1) {
    const quiet = await steadyRead(service.base, path, token, STORM_SECONDS);
    idle.push(...quiet.latencies);
    add(readStatuses, quiet.statuses);
    const flood = loginStorm(service.base, emails.slice(1), password);
    await sleep(500); // the storm is under way before the read starts
    const busy = await steadyRead(service.base, path, token, STORM_SECONDS);
    await flood.stop();
    stormed.push(...busy.latencies);
    add(readStatuses, busy.statuses);
    add(logins, flood.statuses);
  }
  idle.sort((a, b) => a - b);
  stormed.sort((a, b) => a - b);
  const result: StormResult = {
    engine,
    idle: { p50: round1(percentile(idle, 0.5)), p99: round1(percentile(idle, 0.99)), requests: idle.length },
    storm: {
      p50: round1(percentile(stormed, 0.5)),
      p99: round1(percentile(stormed, 0.99)),
      requests: stormed.length,
    },
    ratio: 0,
    logins,
    readStatuses,
  };
  result.ratio = Math.round((result.storm.p99 / Math.max(1, result.idle.p99)) * 100) / 100;
  process.stdout.write(
    `[cost] storm (${engine}): read p99 idle ${result.idle.p99} ms, storm ${result.storm.p99} ms (×${result.ratio}); logins ${JSON.stringify(logins)}\n`,
  );
  return result;
}

/** A small demo (300 members, 2 months: what one menu read touches does not grow with the year). */
async function seed(database: { url: string } | { dataDir: string }) {
  const today = localParts(new Date(), 'Asia/Kolkata').date;
  const db = await openForSeeding({
    databaseUrl: 'url' in database ? database.url : undefined,
    dataDir: 'dataDir' in database ? database.dataDir : 'memory://',
  });
  try {
    const summary = await seedDemo(db, { members: 300, months: 2, lastMonth: today.slice(0, 7), today });
    // A day of the demo with its three menus.
    return { summary, path: `/api/meals?date=${summary.to.slice(0, 8)}10` };
  } finally {
    await db.close();
  }
}

export async function benchCost(options: { serverBase?: string; engines: string[] }): Promise<CostResult> {
  const result: CostResult = {
    when: new Date().toISOString(),
    loadBefore: loadavg()[0],
    loadAfter: 0,
    storms: [],
  };
  const emails = Array.from(
    { length: STORM_LOGINS + 1 },
    (_, i) => `member${String(i + 10).padStart(5, '0')}@mess.local`,
  );
  if (options.serverBase) {
    const server = await freshServerDatabase(options.serverBase, 'mess_cost');
    try {
      const { summary, path } = await seed({ url: server.url });
      const pooler = startPooler(server.url);
      try {
        result.ab = await abRounds(server.url, path, [emails[0]], summary.memberPassword, pooler?.url);
        // Five messes: four more, one member of each moved there, the connections shared out among the five.
        const fiveMembers = emails.slice(0, 5);
        await spreadOverMesses(server.url, summary, fiveMembers.slice(1));
        result.abFiveMesses = await abRounds(server.url, path, fiveMembers, summary.memberPassword, pooler?.url);
      } finally {
        pooler?.stop();
      }
      if (options.engines.includes('server')) {
        const service = await startService({ url: server.url });
        try {
          result.storms.push(await storm('server', service, path, emails, summary.memberPassword));
        } finally {
          await service.stop();
        }
      }
    } finally {
      await server.drop();
    }
  }
  if (options.engines.includes('embedded')) {
    const dataDir = mkdtempSync(join(tmpdir(), 'mess-cost-'));
    try {
      const { summary, path } = await seed({ dataDir });
      const service = await startService({ dataDir });
      try {
        result.storms.push(await storm('embedded', service, path, emails, summary.memberPassword));
      } finally {
        await service.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  result.loadAfter = loadavg()[0];
  return result;
}

export function costReport(r: CostResult): string {
  const lines = ['## Per-request cost (authenticated `GET /api/meals?date=D`)', ''];
  lines.push(
    `${r.when}; load average ${r.loadBefore.toFixed(1)} before, ${r.loadAfter.toFixed(1)} after (the load generator shares the machine).`,
    '',
  );
  for (const [ab, messes] of [
    [r.ab, 'one mess'],
    [r.abFiveMesses, 'five messes (the connections shared out among one member of each)'],
  ] as const) {
    if (!ab) continue;
    lines.push(
      `A/B on the PostgreSQL server, ${messes}, ${CONNECTIONS} connections, ${ab.rounds.length} alternating rounds of ${SECONDS} s each: the built service against \`bench/bare-handler.ts\` (Fastify 5 + pg + jsonwebtoken, the service's SQL: token check, token-holder query, the day's menus of the holder's mess with an explicit \`mess_id = $1\` filter, the mess's meal-time order; the service gets the same filter from row-level security and sets \`app.mess\` on its connection, so the ratio is the per-request cost of tenancy plus the framework). CPU per request: user + system time of each server process (/proc/<pid>/stat) over the requests it answered.`,
      '',
      '| | req/s | p50 ms | p99 ms | CPU per request | non-2xx |',
      '|---|---:|---:|---:|---:|---:|',
      ...ab.rounds.flatMap((round, i) => [
        `| round ${i + 1}: service | ${round.service.reqPerSec} | ${round.service.p50} | ${round.service.p99} | ${round.service.cpuMsPerRequest} ms | ${round.service.non2xx} |`,
        `| round ${i + 1}: bare | ${round.bare.reqPerSec} | ${round.bare.p50} | ${round.bare.p99} | ${round.bare.cpuMsPerRequest} ms | ${round.bare.non2xx} |`,
      ]),
      `| **service (mean)** | **${ab.service.reqPerSec}** | ${ab.service.p50} | ${ab.service.p99} | **${ab.service.cpuMsPerRequest} ms** | ${ab.service.non2xx} |`,
      `| **bare (mean)** | **${ab.bare.reqPerSec}** | ${ab.bare.p50} | ${ab.bare.p99} | **${ab.bare.cpuMsPerRequest} ms** | ${ab.bare.non2xx} |`,
      ...(ab.perTransaction ?? []).map(
        (o) =>
          `| **${o.label} (mean)** | **${o.run.reqPerSec}** | ${o.run.p50} | ${o.run.p99} | **${o.run.cpuMsPerRequest} ms** | ${o.run.non2xx} |`,
      ),
      '',
      ...(ab.perTransaction ?? []).map(
        (o) =>
          `${o.label}: throughput **${o.throughputRatio}×** the bare handler (target ≥ 0.85: ${o.throughputRatio >= 0.85 ? 'met' : 'missed'}), CPU per request ${o.cpuRatio}×.`,
      ),
      '',
      `Throughput ratio **${ab.throughputRatio}×** the bare handler (target ≥ 0.85 with tenancy, issue 20: ${ab.throughputRatio >= 0.85 ? 'met' : 'missed'}; ≥ 0.70 before it: ${ab.throughputRatio >= 0.7 ? 'met' : 'missed'}); CPU per request **${ab.cpuRatio}×** (target ≤ 2: ${ab.cpuRatio <= 2 ? 'met' : 'missed'}).`,
      '',
    );
  }
  if (r.storms.length) {
    lines.push(
      `Login storm: the same read at ${STORM_READ_RATE} req/s, ${STORM_ROUNDS} × ${STORM_SECONDS} s idle and ${STORM_ROUNDS} × ${STORM_SECONDS} s while ${STORM_LOGINS} clients log in with correct passwords back to back (alternating); p99 over all reads of each kind.`,
      '',
      '| engine | idle p50 / p99 ms | storm p50 / p99 ms | ratio (target ≤ 2.5) | logins answered (status: count) | reads (status: count) |',
      '|---|---|---|---|---|---|',
      ...r.storms.map(
        (s) =>
          `| ${s.engine} | ${s.idle.p50} / ${s.idle.p99} | ${s.storm.p50} / ${s.storm.p99} | **${s.ratio}×** ${s.ratio <= 2.5 ? 'met' : 'missed'} | ${Object.entries(
            s.logins,
          )
            .map(([k, v]) => `${k}: ${v}`)
            .join(', ')} | ${Object.entries(s.readStatuses)
            .map(([k, v]) => `${k}: ${v}`)
            .join(', ')} |`,
      ),
      '',
    );
  }
  return lines.join('\n');
}
