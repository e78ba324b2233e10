/**
 * The service as the checks of scripts/ha/ drive it: `dist/main.js` started on a port, JSON over HTTP, a set-up mess.
 * Run with the pinned Node (node_modules/.bin/node), which strips the types.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Answer {
  status: number;
  body: any;
  retryAfter: string | null;
}

export class Service {
  private child?: ChildProcess;
  private output = '';
  readonly base: string;
  readonly port: number;
  private readonly env: Record<string, string>;

  constructor(port: number, env: Record<string, string>) {
    this.port = port;
    this.env = env;
    this.base = `http://127.0.0.1:${port}/api`;
  }

  /** Starts `dist/main.js` with `env` (DATABASE_URL and the rest) and waits for /api/live. */
  async start(): Promise<void> {
    const env = {
      PATH: process.env.PATH ?? '',
      TZ: 'UTC',
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(this.port),
      JWT_SECRET: 'scripts-ha-secret-long-enough-for-hs256-0123456789',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '1000000',
      LOGIN_RATE_LIMIT_PER_MINUTE: '100000',
      ...this.env,
    };
    const child = spawn(process.execPath, [join(root, 'dist', 'main.js')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout?.on('data', (c: Buffer) => (this.output += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (this.output += c.toString()));
    for (const started = Date.now(); ; await sleep(200)) {
      if (child.exitCode !== null) throw new Error(`the service exited at start-up:\n${this.output}`);
      const live = await fetch(`${this.base}/live`).catch(() => undefined);
      if (live?.status === 200) return;
      if (Date.now() - started > 180_000) throw new Error(`the service did not start:\n${this.output}`);
    }
  }

  /** Stops it (SIGTERM, then SIGKILL) and keeps its log in `logFile`. */
  async stop(logFile: string): Promise<void> {
    this.child?.kill('SIGTERM');
    for (let i = 0; i < 50 && this.child && this.child.exitCode === null && this.child.signalCode === null; i += 1) await sleep(100);
    this.child?.kill('SIGKILL');
    writeFileSync(logFile, this.output);
  }

  get log(): string {
    return this.output;
  }

  async http(
    method: string,
    path: string,
    options: { token?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 12_000),
    });
    const text = await res.text();
    let body: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) body = JSON.parse(text);
    return { status: res.status, body, retryAfter: res.headers.get('retry-after') };
  }

  /** A request that must succeed in the end (set-up, final reads): retried on 503 and network errors for 120 s. */
  async must(method: string, path: string, options: Parameters<Service['http']>[2] = {}, ok = [200, 201]): Promise<Answer> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const res = await this.http(method, path, options).catch((error: Error) => ({ status: 0, body: error.message, retryAfter: null }));
      if (ok.includes(res.status)) return res;
      if ((res.status !== 503 && res.status !== 0) || Date.now() > deadline)
        throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
      await sleep(500);
    }
  }

  async login(email: string, password: string): Promise<string> {
    return (await this.must('POST', '/auth/login', { body: { email, password } })).body.token as string;
  }

  /** The first mess set up by the admin (Breakfast, Lunch, Dinner), and `count` approved members; their ids. */
  async setUpMess(token: string, count: number): Promise<string[]> {
    await this.must('POST', '/auth/admin/setup', {
      token,
      body: {
        messName: 'HA Mess',
        email: 'mess@ha.local',
        phone: '+91-8012345678',
        expenseCategories: ['Groceries', 'Gas'],
        mealTimes: [
          { name: 'Breakfast', startTime: '07:30', endTime: '09:30' },
          { name: 'Lunch', startTime: '12:30', endTime: '14:30' },
          { name: 'Dinner', startTime: '19:30', endTime: '21:30' },
        ],
      },
    });
    const members: string[] = [];
    for (let n = 1; n <= count; n += 1) {
      const reg = await this.must('POST', '/auth/register', {
        body: {
          email: `member${n}@ha.local`,
          password: `member-password-${n}`,
          fullName: `Member ${n}`,
          collegeId: `HA${n}`,
          room: `R-${n}`,
          phone: `98765${String(n).padStart(5, '0')}`,
        },
      });
      const id = reg.body.userId as string;
      await this.must('PUT', `/users/${id}/approve`, { token });
      members.push(id);
    }
    return members;
  }
}

export const percentile = (values: number[], p: number): number => {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
