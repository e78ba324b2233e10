// `npm run load`: a mixed, authenticated read/write workload with autocannon against a running service, or against
// one this command starts on the PostgreSQL server engine (a fresh database beside LOAD_DATABASE_URL, dropped after).
// Prints and writes bench/LOAD.md: throughput, p50/p99 per route, the status histogram, errors, and whether every
// acknowledged expense write is stored exactly once.
//
//   npm run load -- [--url http://host:3000/api] [--connections 200] [--duration 60] [--engine server|embedded]
//
// --engine embedded starts the service on the embedded engine (a fresh data directory, removed after) instead.
//
// With --url, LOAD_ADMIN_EMAIL and LOAD_ADMIN_PASSWORD name an admin of that service; its per-IP rate limit
// (RATE_LIMIT_PER_MINUTE) applies to this one client, so 429s there say more about the limit than the service.
import autocannon from 'autocannon';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { api, freshServerDatabase, login, messSetupBody } from './support';

const root = join(__dirname, '..', '..');

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const CONNECTIONS = Number(option('connections', '200'));
/** Seconds without an answer after which a request counts as a timeout (the 10 s). */
const TIMEOUT = Number(option('timeout', '10'));
const DURATION = Number(option('duration', '60'));
const URL_GIVEN = option('url', '');
const ENGINE = option('engine', 'server');
if (ENGINE !== 'server' && ENGINE !== 'embedded') throw new Error('--engine is server or embedded');
const SERVER_BASE = process.env.LOAD_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** The month the workload writes expenses into, so the check after the run counts only them. */
const WRITE_MONTH = '2024-02';
/** LOAD_SERVICE_LOG=<file>: the started service logs every request (level info) there instead of warnings here. */
const SERVICE_LOG = process.env.LOAD_SERVICE_LOG;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Started {
  base: string;
  admin: { email: string; password: string };
  stop: () => Promise<void>;
}

/** The built service on the server engine (a fresh database) or on the embedded one (a fresh data directory). */
async function startService(): Promise<Started> {
  const dataDir = ENGINE === 'embedded' ? mkdtempSync(join(tmpdir(), 'mess-load-')) : undefined;
  const server = dataDir ? undefined : await freshServerDatabase(SERVER_BASE, 'mess_load');
  const port = 21000 + Math.floor(Math.random() * 8000);
  const admin = { email: 'load-admin@mess.local', password: 'load-admin-password' };
  const child: ChildProcess = spawn(process.execPath, [join(root, 'dist', 'main.js')], {
    cwd: root,
    stdio: ['ignore', SERVICE_LOG ? openSync(SERVICE_LOG, 'w') : 'inherit', 'inherit'],
    env: {
      PATH: process.env.PATH,
      // Production requires a server URL; the embedded engine runs as a developer starts it.
      ...(dataDir
        ? { NODE_ENV: 'development', DATA_DIR: dataDir }
        : { NODE_ENV: 'production', DATABASE_URL: server!.url }),
      JWT_SECRET: randomBytes(32).toString('hex'),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: SERVICE_LOG ? 'info' : 'warn',
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      // One client address makes all the load: the per-IP limits would measure themselves.
      RATE_LIMIT_PER_MINUTE: '1000000',
      LOGIN_RATE_LIMIT_PER_MINUTE: '100000',
      NOTIFY_WORKER_ENABLED: 'false',
      NOTIFY_SCHEDULES_ENABLED: 'false',
    },
  });
  const base = `http://127.0.0.1:${port}/api`;
  for (const deadline = Date.now() + 120_000; ; await sleep(200)) {
    if (child.exitCode !== null) throw new Error('the service exited at start-up');
    if ((await fetch(`${base}/live`).catch(() => undefined))?.status === 200) break;
    if (Date.now() > deadline) throw new Error('the service did not start within 120 s');
  }
  return {
    base,
    admin,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      await server?.drop();
    },
  };
}

/** A treasurer and some students, approved and logged in; the mess set up when it is not. */
async function prepare(base: string, admin: { email: string; password: string }) {
  const adminToken = await login(base, admin.email, admin.password);
  const config = await api(base, 'GET', '/auth/admin/config', adminToken);
  if (!config.body?.config?.configured) {
    await api(base, 'POST', '/auth/admin/setup', adminToken, messSetupBody('Load Test Mess'));
  }
  const run = randomBytes(3).toString('hex');
  const member = async (role: string, n: number) => {
    const email = `load-${run}-${role}${n}@load.local`;
    const password = `load-password-${n}`;
    const reg = await api(base, 'POST', '/auth/register', undefined, {
      email,
      password,
      fullName: `Load ${role} ${n}`,
      collegeId: `L${n}`,
      room: `L-${n}`,
      phone: `9${String(100000000 + n).slice(-9)}`,
    });
    if (reg.status !== 201) throw new Error(`register: ${reg.status} ${JSON.stringify(reg.body)}`);
    await api(base, 'PUT', `/users/${reg.body.userId}/approve`, adminToken);
    if (role !== 'student') await api(base, 'PUT', `/users/${reg.body.userId}/role`, adminToken, { role });
    return login(base, email, password);
  };
  const treasurer = await member('treasurer', 1);
  const students: string[] = [];
  for (let n = 0; n < 20; n += 1) students.push(await member('student', 100 + n));
  return { treasurer, students };
}

/** The month's expense count; asked again while the service sheds load (503) after the run, for up to 30 s. */
async function expenseCount(base: string, token: string): Promise<number> {
  for (const deadline = Date.now() + 30_000; ; await sleep(1000)) {
    const res = await api(
      base,
      'GET',
      `/expenses?startDate=${WRITE_MONTH}-01&endDate=${WRITE_MONTH}-29&limit=1`,
      token,
    );
    if (res.status === 200) return res.body.pagination.total as number;
    if (res.status !== 503 || Date.now() > deadline)
      throw new Error(`counting expenses: ${res.status} ${JSON.stringify(res.body)}`);
  }
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0;

async function main(): Promise<void> {
  const started = URL_GIVEN
    ? {
        base: URL_GIVEN.replace(/\/+$/, ''),
        admin: {
          email: process.env.LOAD_ADMIN_EMAIL ?? '',
          password: process.env.LOAD_ADMIN_PASSWORD ?? '',
        },
        stop: async () => undefined,
      }
    : await startService();
  try {
    const { treasurer, students } = await prepare(started.base, started.admin);
    const before = await expenseCount(started.base, treasurer);
    const origin = new URL(started.base);
    const prefix = origin.pathname.replace(/\/+$/, '');
    const auth = (token: string) => ({
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
    });
    let seq = 0;
    const student = () => students[seq++ % students.length];
    const day = () => String(1 + (seq % 28)).padStart(2, '0');

    // One entry per route; each connection walks the list in turn (autocannon's `requests`).
    const routes: { name: string; request: autocannon.Request }[] = [
      {
        name: 'GET /analytics/shares',
        request: {
          method: 'GET',
          path: `${prefix}/analytics/shares?month=${WRITE_MONTH}`,
          headers: auth(treasurer),
        },
      },
      {
        name: 'POST /expenses',
        request: {
          method: 'POST',
          path: `${prefix}/expenses`,
          headers: auth(treasurer),
          setupRequest: (req) => {
            expenseSent += 1;
            return {
              ...req,
              body: JSON.stringify({
                category: 'Groceries',
                amount: 12.5,
                date: `${WRITE_MONTH}-${day()}`,
                description: `load ${expenseSent}`,
              }),
            };
          },
        },
      },
      {
        name: 'GET /expenses',
        request: { method: 'GET', path: `${prefix}/expenses?limit=20`, headers: auth(treasurer) },
      },
      {
        name: 'POST /attendance',
        request: {
          method: 'POST',
          path: `${prefix}/attendance`,
          setupRequest: (req) => ({
            ...req,
            headers: auth(student()),
            body: JSON.stringify({
              date: `${WRITE_MONTH}-${day()}`,
              mealType: ['Breakfast', 'Lunch', 'Dinner'][seq % 3],
              status: seq % 5 ? 'present' : 'absent',
            }),
          }),
        },
      },
      {
        name: 'GET /attendance',
        request: {
          method: 'GET',
          path: `${prefix}/attendance?limit=20`,
          setupRequest: (req) => ({ ...req, headers: auth(student()) }),
        },
      },
      {
        name: 'GET /analytics/attendance',
        request: {
          method: 'GET',
          path: `${prefix}/analytics/attendance?month=${WRITE_MONTH}`,
          headers: auth(treasurer),
        },
      },
      {
        name: 'GET /auth/verify',
        request: {
          method: 'GET',
          path: `${prefix}/auth/verify`,
          setupRequest: (req) => ({ ...req, headers: auth(student()) }),
        },
      },
    ];

    // autocannon calls a request's onResponse and then emits 'response' with the latency, synchronously.
    const latencies = new Map<string, number[]>(routes.map((r) => [r.name, []]));
    const statuses = new Map<string, Map<number, number>>(routes.map((r) => [r.name, new Map()]));
    let lastRoute = '';
    let expenseCreated = 0;
    /** Expense writes that got any answer; the rest (timeouts, cut connections) may or may not have been stored. */
    let expenseAnswered = 0;
    let expenseSent = 0;
    let shed = 0;
    // Every request carries its own x-request-id (the service echoes it and logs it), so a request that got no answer
    // is named by route, and can be looked up in the service's log (LOAD_SERVICE_LOG).
    const unanswered = new Map<string, { route: string; at: number }>();
    let sentCount = 0;
    const requests = routes.map(({ name, request }) => ({
      ...request,
      setupRequest: (req: autocannon.Request, context: object) => {
        const own = request.setupRequest as
          ((r: autocannon.Request, c: object) => autocannon.Request) | undefined;
        const prepared = own ? own(req, context) : req;
        const id = `load-${(sentCount += 1)}`;
        unanswered.set(id, { route: name, at: performance.now() });
        return { ...prepared, headers: { ...(prepared.headers ?? request.headers), 'x-request-id': id } };
      },
      onResponse: (status: number, _body: string, _context: unknown, headers?: Record<string, unknown>) => {
        lastRoute = name;
        const echoed = headers && Object.entries(headers).find(([h]) => h.toLowerCase() === 'x-request-id');
        if (echoed) unanswered.delete(String(echoed[1]));
        // Deliberate load shedding: 503 with Retry-After (the busy answer), not a failure.
        if (status === 503 && headers && Object.keys(headers).some((h) => h.toLowerCase() === 'retry-after'))
          shed += 1;
        const counts = statuses.get(name)!;
        counts.set(status, (counts.get(status) ?? 0) + 1);
        if (name === 'POST /expenses') {
          if (status === 201) expenseCreated += 1;
          expenseAnswered += 1;
        }
      },
    }));

    process.stdout.write(`load: ${CONNECTIONS} connections for ${DURATION} s against ${started.base}\n`);
    const load1 = loadavg()[0];
    const result = await new Promise<autocannon.Result>((resolve, reject) => {
      const instance = autocannon(
        { url: origin.origin, connections: CONNECTIONS, duration: DURATION, timeout: TIMEOUT, requests },
        (error, finished) => (error ? reject(error) : resolve(finished)),
      );
      instance.on('response', (_client, _status, _bytes, ms) => latencies.get(lastRoute)?.push(ms));
    });
    const load2 = loadavg()[0];
    const finishedAt = performance.now();
    // Sent more than TIMEOUT s before the end and never answered: the requests autocannon counted as timeouts.
    const timedOut = [...unanswered].filter(([, r]) => r.at < finishedAt - TIMEOUT * 1000);
    const timedOutOn = (route: string) => timedOut.filter(([, r]) => r.route === route).length;
    await sleep(500);
    const stored = (await expenseCount(started.base, treasurer)) - before;

    // Every acknowledged write is stored; a write that got no answer (timeout, cut connection) may be stored too.
    const writesHold = stored >= expenseCreated && stored <= expenseCreated + (expenseSent - expenseAnswered);
    const histogram = new Map<number, number>();
    for (const counts of statuses.values())
      for (const [status, n] of counts) histogram.set(status, (histogram.get(status) ?? 0) + n);
    const total = [...histogram.values()].reduce((a, b) => a + b, 0);
    const fiveXx = [...histogram].filter(([s]) => s >= 500).reduce((a, [, n]) => a + n, 0);
    const failures = fiveXx - shed;
    const lines = [
      `# Load: ${CONNECTIONS} connections, ${DURATION} s, mixed authenticated reads and writes`,
      '',
      `- Target: ${URL_GIVEN ? started.base : ENGINE === 'embedded' ? 'the built service on the embedded engine (PGlite), fresh data directory' : 'the built service on the PostgreSQL server engine, fresh database'}`,
      `- Machine: ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GB; load average ${load1.toFixed(1)} ` +
        `at the start, ${load2.toFixed(1)} at the end (the load generator runs on the same machine)`,
      `- When: ${new Date().toISOString()}`,
      `- Requests: ${total} answered in ${result.duration.toFixed(1)} s = **${Math.round(total / result.duration)} req/s**; ` +
        `errors ${result.errors}, timeouts (no answer in ${TIMEOUT} s) ${result.timeouts}, non-2xx ${result.non2xx}, ` +
        `5xx ${fiveXx} (of which ${shed} deliberate 503 with Retry-After, ${failures} others)`,
      `- Latency over all routes: p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`,
      `- Expense writes: ${expenseSent} sent, ${expenseCreated} acknowledged (201), ${stored} stored: ` +
        (writesHold
          ? 'every acknowledged write is stored (unanswered ones may be too)'
          : 'MISMATCH: fewer stored than acknowledged, or more than were sent'),
      '',
      '| route | requests | p50 ms | p99 ms | statuses | no answer in 10 s |',
      '|---|---:|---:|---:|---|---:|',
      ...routes.map(({ name }) => {
        const sorted = [...latencies.get(name)!].sort((a, b) => a - b);
        const counts = [...statuses.get(name)!].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`);
        return `| ${name} | ${sorted.length} | ${percentile(sorted, 50).toFixed(0)} | ${percentile(sorted, 99).toFixed(0)} | ${counts.join(', ')} | ${timedOutOn(name)} |`;
      }),
      ...(timedOut.length
        ? [
            '',
            `Unanswered request ids (x-request-id, first 10): ${timedOut
              .slice(0, 10)
              .map(([id]) => id)
              .join(', ')}`,
          ]
        : []),
      '',
      '| status | count |',
      '|---|---:|',
      ...[...histogram].sort(([a], [b]) => a - b).map(([s, n]) => `| ${s} | ${n} |`),
      '',
    ];
    const report = lines.join('\n');
    writeFileSync(join(root, 'bench', 'LOAD.md'), report);
    process.stdout.write(`${report}\nwritten to bench/LOAD.md\n`);
    if (failures || result.errors || !writesHold) process.exitCode = 1;
  } finally {
    await started.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `load failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
