import { sendWhileUnavailable } from './unavailable';
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ADMIN } from './app';

/**
 * The real server process (`node dist/main.js`), for tests of what only processes show: signals, kill -9, several
 * replicas. The build is made when it is older than the sources (CI builds first); concurrent test files wait for
 * one another's build instead of writing dist/ at the same time.
 */
const root = join(__dirname, '..', '..');
export const ENTRY = join(root, 'dist', 'main.js');

function newestUnder(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestUnder(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function buildIfStale(): Promise<void> {
  const fresh = () => existsSync(ENTRY) && statSync(ENTRY).mtimeMs >= newestUnder(join(root, 'src'));
  if (fresh()) return;
  const lock = join(root, '.build.lock');
  for (const started = Date.now(); ; await sleep(500)) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another file builds; a lock older than the build's time limit was left by a killed run.
      if (Date.now() - started > 250_000) rmSync(lock, { recursive: true, force: true });
    }
  }
  try {
    if (fresh()) return;
    // The pinned Node runs the Nest CLI, as `npm run build` would.
    execFileSync(
      process.execPath,
      [require.resolve('@nestjs/cli/bin/nest.js'), 'build', '-p', 'tsconfig.build.json'],
      { cwd: root, stdio: 'pipe', timeout: 240_000 },
    );
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Whether something answers PING with PONG on host:port, asked synchronously (for describe-level skips). */
export function redisAnswers(host = '127.0.0.1', port = 6379): boolean {
  const script = `
    const s = require('net').connect(${port}, '${host}');
    s.setTimeout(1000, () => process.exit(1));
    s.on('error', () => process.exit(1));
    s.on('connect', () => s.write('PING\\r\\n'));
    s.on('data', (d) => process.exit(String(d).startsWith('+PONG') ? 0 : 1));`;
  return spawnSync(process.execPath, ['-e', script], { timeout: 3000 }).status === 0;
}

/** One service process on its own port. */
export class ServiceProcess {
  /**
   * A start on a fresh embedded data directory (initdb, every migration) took 66 s on the 2-core machine at load
   * average 17; an idle one takes a few seconds.
   */
  static readonly START_DEADLINE_MS = 180_000;

  output = '';
  readonly base: string;
  private child?: ChildProcess;
  private exit?: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(
    readonly port: number,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.base = `http://127.0.0.1:${port}/api`;
  }

  /** Starts `dist/main.js` with the test's usual settings plus `env`, and waits until /api/live answers. */
  static async start(env: NodeJS.ProcessEnv, name = 'service'): Promise<ServiceProcess> {
    const service = new ServiceProcess(await freePort(), {
      PATH: process.env.PATH,
      TZ: 'UTC',
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      JWT_SECRET: 'service-process-secret-long-enough-for-hs256-0123456789',
      LOG_LEVEL: 'warn',
      ...env,
    });
    service.name = name;
    await service.restart();
    return service;
  }

  name = 'service';

  /** (Re)starts the process on the same port and storage. */
  async restart(): Promise<void> {
    const child = spawn(process.execPath, [ENTRY], {
      cwd: root,
      env: { ...this.env, PORT: String(this.port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exit = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const deadline = Date.now() + ServiceProcess.START_DEADLINE_MS;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${this.name} exited at start-up:\n${this.output}`);
      const live = await fetch(`${this.base}/live`).catch(() => undefined);
      if (live?.status === 200) return;
      if (Date.now() > deadline)
        throw new Error(
          `${this.name} did not answer /api/live in ${ServiceProcess.START_DEADLINE_MS / 1000} s:\n${this.output}`,
        );
      await sleep(100);
    }
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Sends `signal` and waits for the process to end. */
  async kill(
    signal: NodeJS.Signals = 'SIGKILL',
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.running) this.child!.kill(signal);
    return this.exit!;
  }

  /** A JSON request; the body is parsed when it is JSON. Rejects on a network error. */
  async request<T = any>(
    method: string,
    path: string,
    options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; body: T }> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    // Sent again while the database is briefly away, under TEST_RETRY_UNAVAILABLE (test/support/unavailable.ts).
    const { status, body } = await sendWhileUnavailable(async () => {
      const res = await fetch(`${this.base}${path}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      let parsed: unknown = text;
      if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
      return { status: res.status, headers: res.headers, body: parsed };
    });
    return { status, body: body as T };
  }

  async login(email: string, password: string, headers?: Record<string, string>): Promise<string> {
    const res = await this.request('POST', '/auth/login', { body: { email, password }, headers });
    if (res.status !== 200)
      throw new Error(`login of ${email} failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.token as string;
  }
}

/** Registers a member through one process, approves them (and sets a role) as the admin, and logs them in. */
export async function registerMember(
  service: ServiceProcess,
  adminToken: string,
  role: 'student' | 'manager' | 'treasurer',
  n: number,
  headers?: Record<string, string>,
): Promise<{ id: string; email: string; password: string; token: string }> {
  const email = `${role}${n}-${Math.random().toString(36).slice(2, 8)}@test.local`;
  const password = `password-${n}-long`;
  const reg = await service.request('POST', '/auth/register', {
    body: {
      email,
      password,
      fullName: `${role} ${n}`,
      collegeId: `C${n}`,
      room: `R-${n}`,
      phone: `98765${String(n).padStart(5, '0')}`,
    },
    headers,
  });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  const id = reg.body.userId as string;
  await service.request('PUT', `/users/${id}/approve`, { token: adminToken, headers });
  if (role !== 'student')
    await service.request('PUT', `/users/${id}/role`, { token: adminToken, body: { role }, headers });
  return { id, email, password, token: await service.login(email, password, headers) };
}

/** Every expense description of a month, read page by page through `service`. */
export async function expenseDescriptions(
  service: ServiceProcess,
  token: string,
  month: string,
): Promise<string[]> {
  const [year, m] = month.split('-').map(Number);
  const last = new Date(Date.UTC(year, m, 0)).getUTCDate();
  const found: string[] = [];
  for (let page = 1; ; page += 1) {
    const res = await service.request(
      'GET',
      `/expenses?startDate=${month}-01&endDate=${month}-${last}&limit=100&page=${page}`,
      { token },
    );
    if (res.status !== 200)
      throw new Error(`listing expenses failed: ${res.status} ${JSON.stringify(res.body)}`);
    found.push(...(res.body.expenses as { description: string }[]).map((e) => e.description));
    if (res.body.expenses.length < 100) return found;
  }
}

/**
 * Writers that record expenses through `targets` (round robin) until stopped. A write counts as acknowledged only
 * when its 201 arrived; each has a unique description, so a duplicate would show.
 */
export function startWriters(
  targets: () => ServiceProcess[],
  token: string,
  date: string,
  concurrency: number,
): { acknowledged: Set<string>; failures: () => number; stop: () => Promise<void> } {
  const acknowledged = new Set<string>();
  let failed = 0;
  let stopping = false;
  let next = 0;
  const writer = async (w: number) => {
    for (let i = 0; !stopping; i += 1) {
      const all = targets().filter((s) => s.running);
      if (!all.length) {
        await sleep(50);
        continue;
      }
      const target = all[next++ % all.length];
      const description = `w${w}-${i}-${Math.random().toString(36).slice(2, 8)}`;
      try {
        const res = await target.request('POST', '/expenses', {
          token,
          body: { category: 'Groceries', amount: 10.25, date, description },
        });
        if (res.status === 201) acknowledged.add(description);
        else failed += 1;
      } catch {
        failed += 1; // the process died under it: not acknowledged
      }
    }
  };
  const running = Array.from({ length: concurrency }, (_, w) => writer(w));
  return {
    acknowledged,
    failures: () => failed,
    stop: async () => {
      stopping = true;
      await Promise.all(running);
    },
  };
}
