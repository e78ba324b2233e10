import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
// What every section of `npm run bench` shares: timing statistics, the HTTP client in its worker thread, logging in.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config/app-config';
import type { LoadJob, LoadResult } from './client-worker';

export interface Stats {
  p50: number;
  p95: number;
}

/** A concurrent run: latencies of every request, how many per second were answered, and the statuses. */
export interface LoadStats extends Stats {
  p99: number;
  max: number;
  count: number;
  perSecond: number;
  statuses: Record<string, number>;
}

export const round = (n: number): number => Math.round(n * 100) / 100;

/** user + system CPU of a process so far, in ms (0 once it is gone), from /proc (USER_HZ: 100 on Linux). */
export function procCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

/** The ids of the database's server processes that serve the service (`pids`: e.g. of pg_stat_activity). */
export type Backends = () => Promise<number[]>;

/**
 * The CPU a piece of work cost per answered request, in ms: this process's (the in-process service, the HTTP client's
 * worker) and the database's backends' (`backends`; none on the embedded engine, whose database runs in this
 * process). Backends that come and go during the work are missed; a pool's stay for its length.
 */
export async function cpuPerRequest<T>(
  backends: Backends | undefined,
  work: () => Promise<T>,
  answered: (result: T) => number,
): Promise<{ result: T; cpuPerRequest: { process: number; database?: number } }> {
  const pidsBefore = backends ? await backends() : [];
  const databaseBefore = new Map(pidsBefore.map((pid) => [pid, procCpuMs(pid)]));
  const processBefore = process.cpuUsage();
  const result = await work();
  const processUsed = process.cpuUsage(processBefore);
  const pidsAfter = backends ? await backends() : [];
  const databaseUsed = pidsAfter.reduce((sum, pid) => sum + procCpuMs(pid) - (databaseBefore.get(pid) ?? 0), 0);
  const count = answered(result) || 1;
  return {
    result,
    cpuPerRequest: {
      process: round((processUsed.user + processUsed.system) / 1000 / count),
      ...(backends ? { database: round(databaseUsed / count) } : {}),
    },
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];

export function statsOf(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: round(percentile(sorted, 0.5)), p95: round(percentile(sorted, 0.95)) };
}

export function loadStatsOf(result: LoadResult): LoadStats {
  const sorted = [...result.samples].sort((a, b) => a - b);
  return {
    ...statsOf(sorted),
    p99: round(percentile(sorted, 0.99)),
    max: round(sorted.at(-1) ?? 0),
    count: sorted.length,
    perSecond: round(sorted.length / result.seconds),
    statuses: result.statuses,
  };
}

/** Sequential calls of `fn` after three warm-up calls. */
export async function timed(runs: number, fn: () => Promise<unknown>): Promise<Stats> {
  for (let i = 0; i < 3; i += 1) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    await fn();
    samples.push(performance.now() - started);
  }
  return statsOf(samples);
}

type Done = { type: 'done'; id: number; samples?: number[]; result?: LoadResult };

/** Drives HTTP requests from a worker thread; `clear` runs on this thread when the worker asks for it. */
export class HttpClient {
  private readonly worker = new Worker(join(__dirname, 'client-worker.js'));
  private next = 0;
  private readonly waiting = new Map<number, (message: Done) => void>();
  private failed: (error: Error) => void = () => undefined;

  constructor(private readonly clear: () => void) {
    this.worker.on('error', (error) => this.failed(error));
    this.worker.on('message', (message: { type: 'clear' } | Done) => {
      if (message.type === 'clear') {
        this.clear();
        this.worker.postMessage({ type: 'cleared' });
      } else {
        this.waiting.get(message.id)?.(message);
        this.waiting.delete(message.id);
      }
    });
  }

  /** `runs` sequential GETs of `url` (after 3 warm-up ones), each expected to answer 200. */
  async measure(
    url: string,
    headers: Record<string, string>,
    runs: number,
    clearBeforeEach: boolean,
  ): Promise<Stats> {
    return statsOf(await this.samples(url, headers, runs, clearBeforeEach));
  }

  /** As `measure`, the latencies themselves (to pool several runs). */
  samples(
    url: string,
    headers: Record<string, string>,
    runs: number,
    clearBeforeEach: boolean,
  ): Promise<number[]> {
    const id = (this.next += 1);
    return new Promise((resolve, reject) => {
      this.failed = reject;
      this.waiting.set(id, (message) => resolve(message.samples!));
      this.worker.postMessage({ type: 'job', job: { id, url, headers, runs, warmup: 3, clearBeforeEach } });
    });
  }

  /** The requests sent by `concurrency` users at once, each pausing about `thinkMs` between two of its own. */
  load(job: Omit<LoadJob, 'id'>): Promise<LoadStats> {
    const id = (this.next += 1);
    return new Promise((resolve, reject) => {
      this.failed = reject;
      this.waiting.set(id, (message) => resolve(loadStatsOf(message.result!)));
      this.worker.postMessage({ type: 'load', job: { ...job, id } });
    });
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}

/** One JSON request to the service (`base` ends in `/api`): its status and parsed body. */
export async function api<T = any>(
  base: string,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** The default meal times, as the benches set a mess up. */
export const MEAL_TIMES = [
  { name: 'Breakfast', startTime: '07:30', endTime: '09:30' },
  { name: 'Lunch', startTime: '12:30', endTime: '14:30' },
  { name: 'Dinner', startTime: '19:30', endTime: '21:30' },
];

/** A mess's setup body (`POST /auth/admin/setup`, or `POST /messes` with a `slug`). */
export const messSetupBody = (messName: string, extra: Record<string, unknown> = {}) => ({
  messName,
  email: 'mess@load.local',
  phone: '+91-8012345678',
  expenseCategories: ['Groceries', 'Gas'],
  mealTimes: MEAL_TIMES,
  ...extra,
});

export async function login(base: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

/** A new, empty database beside `serverBase` (same server and credentials), and how to drop it. */
export async function freshServerDatabase(
  serverBase: string,
  prefix: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new Client({ connectionString: serverBase });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database "${name}"`);
  const url = new URL(serverBase);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists "${name}" with (force)`) };
}

export { openForBulkLoad as openForSeeding } from '../src/database/open-database';

const root = join(__dirname, '..', '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A service process the bench started: its base URL (no `/api`), and how to stop it (SIGTERM, then SIGKILL). */
export interface Spawned {
  child: ChildProcess;
  base: string;
  stop: () => Promise<void>;
}

/** Starts `script` (node) on a free port with `env` and waits until `ready` answers (two minutes at most). */
/** A port nothing listens on now (the machine runs other servers: RabbitMQ's 25672 was once drawn at random). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function spawnAndWait(
  script: string,
  env: Record<string, string>,
  ready: string,
  nodeArgs: string[] = [],
): Promise<Spawned> {
  // Away from the 4000s, where NATS (4222) and other local services listen.
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, script], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { PATH: process.env.PATH ?? '', PORT: String(port), HOST: '127.0.0.1', ...env },
  });
  const base = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 120_000; ; await sleep(200)) {
    if (child.exitCode !== null) throw new Error(`${script} exited at start-up`);
    const res = await fetch(`${base}${ready}`).catch(() => undefined);
    if (res) {
      await res.arrayBuffer();
      break;
    }
    if (Date.now() > deadline) throw new Error(`${script} did not start within 120 s`);
  }
  return {
    child,
    base,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(10_000)]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

/** The service in this process on a fresh database, listening on a free port, with its admin logged in. */
export interface InProcessService {
  app: NestFastifyApplication;
  /** Ends in `/api`. */
  base: string;
  /** One JSON request as the admin: its parsed body; anything but 200 or 201 throws with the answer. */
  call: <T = Record<string, unknown>>(method: string, path: string, body?: unknown) => Promise<T>;
}

/** Starts the service in this process on `databaseUrl` (production settings, no rate limit to speak of). */
export async function startInProcess(
  databaseUrl: string,
  admin: { email: string; password: string; timezone: string },
): Promise<InProcessService> {
  const config = loadConfig({
    NODE_ENV: 'production',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0000',
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    MESS_TIMEZONE: admin.timezone,
    RATE_LIMIT_PER_MINUTE: '1000000',
  });
  const app = await createApp(config);
  try {
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as { port: number };
    const base = `http://127.0.0.1:${port}/api`;
    const token = await login(base, admin.email, admin.password);
    const call = async <T = Record<string, unknown>>(method: string, path: string, body?: unknown) => {
      const res = await api<T>(base, method, path, token, body);
      if (res.status !== 200 && res.status !== 201)
        throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    return { app, base, call };
  } catch (error) {
    await app.close();
    throw error;
  }
}
