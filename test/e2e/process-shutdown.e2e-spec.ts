import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { ADMIN } from '../support/app';
import { databaseEnv, freshDatabase, type TestDatabase } from '../support/database';
import { parseExposition } from '../support/prometheus-text';
import { buildIfStale, ENTRY as entry, freePort, ServiceProcess } from '../support/service-process';

/**
 * The real server process (`node dist/main.js`) and a real SIGTERM, as Kubernetes stops a pod. This needs the build:
 * CI builds before testing; on a fresh clone or after a source change, beforeAll runs `nest build` itself (up to a
 * few minutes on a busy machine). The spawned server always uses the in-memory embedded database: what is under test
 * is the process, not the engine.
 */
const root = join(__dirname, '..', '..');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One request on a fresh connection; rejects with the socket error (ECONNREFUSED once nobody listens). */
function call(
  url: string,
  options: { method?: string; body?: string; onSent?: () => void } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? 'GET',
        agent: false,
        headers: options.body ? { 'content-type': 'application/json' } : {},
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body, options.onSent);
  });
}

describe('The server process on SIGTERM', () => {
  let server: ChildProcess | undefined;
  let base: string;
  let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  let output = '';
  let database: TestDatabase | undefined;

  beforeAll(async () => {
    await buildIfStale();
    // The same process against the PostgreSQL server when the suite runs there (the pool closes after the insert).
    database = await freshDatabase();
    const port = await freePort();
    base = `http://127.0.0.1:${port}/api`;
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      TZ: 'UTC',
      NODE_ENV: 'test',
      ...(database.url ? databaseEnv(database) : { DATA_DIR: 'memory://' }),
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      JWT_SECRET: 'process-shutdown-secret-long-enough-for-hs256-0123456789',
      // Registration and login spend most of a second in bcrypt: a request that is surely in flight at the signal.
      BCRYPT_COST: '13',
      LOG_LEVEL: 'silent',
    };
    const child = spawn(process.execPath, [entry], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    server = child;
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const deadline = Date.now() + ServiceProcess.START_DEADLINE_MS;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited at start-up:\n${output}`);
      const live = await call(`${base}/live`).catch(() => undefined);
      if (live?.status === 200) break;
      if (Date.now() > deadline)
        throw new Error(
          `the server did not answer /api/live in ${ServiceProcess.START_DEADLINE_MS / 1000} s:\n${output}`,
        );
      await sleep(100);
    }
  }, 300_000);

  afterAll(async () => {
    if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
    await database?.drop();
  });

  it('finishes the request in flight, refuses new connections and exits with code 0', async () => {
    let sent!: () => void;
    const requestSent = new Promise<void>((resolve) => (sent = resolve));
    // A registration: bcrypt first, then an insert, so the database must still be open after the signal.
    const inFlight = call(`${base}/auth/register`, {
      method: 'POST',
      body: JSON.stringify({
        email: 'late@test.local',
        password: 'late-password',
        fullName: 'Late Arrival',
        collegeId: 'C-LATE',
        room: 'R-1',
        phone: '9876543210',
      }),
      onSent: sent,
    });
    await requestSent;
    // Until the server counts the registration among its requests in flight (the scrape is the other one): it is then
    // past the point where a closing server answers 503, and in bcrypt for most of a second. (A fixed 50 ms wait was
    // too short on a busy machine: the signal came first and the registration was rightly answered 503.)
    for (;;) {
      const scrape = await call(`${base}/metrics/prometheus`);
      const inFlightNow = parseExposition(scrape.body).get('mess_http_requests_in_flight')?.samples[0]?.value;
      if ((inFlightNow ?? 0) >= 2) break;
      await sleep(10);
    }
    const signalledAt = Date.now();
    server!.kill('SIGTERM');

    // While the registration is still being answered, new connections are turned away: 503 while the services stop,
    // then refused (or reset, if one slipped in as the listener closed) once the HTTP server has stopped.
    const turnedAway: string[] = [];
    for (let i = 0; i < 100 && !turnedAway.includes('ECONNREFUSED'); i += 1) {
      turnedAway.push(
        await call(`${base}/live`).then(
          (res) => String(res.status),
          (error: { code?: string }) => error.code ?? String(error),
        ),
      );
      await sleep(10);
    }
    const afterFirstRefusal = turnedAway.slice(turnedAway.findIndex((r) => r !== '200'));
    expect(afterFirstRefusal.every((r) => ['503', 'ECONNRESET', 'ECONNREFUSED'].includes(r))).toBe(true);
    expect(turnedAway).toContain('ECONNREFUSED');

    const answer = await inFlight;
    expect([answer.status, answer.body]).toEqual([201, expect.stringContaining('"userId"')]);

    let timer: NodeJS.Timeout | undefined;
    const exit = await Promise.race([
      exited,
      new Promise<string>((resolve) => (timer = setTimeout(() => resolve('still running'), 10_000))),
    ]);
    clearTimeout(timer);
    // The output is in the comparison so that a failure shows what the server said.
    expect([exit, output]).toEqual([{ code: 0, signal: null }, output]);
    expect(Date.now() - signalledAt).toBeLessThan(10_000);
  }, 30_000);
});

describe('The server process on SIGTERM with a request that never finishes', () => {
  let service: ServiceProcess | undefined;
  const BOUND_MS = 2_000;

  beforeAll(async () => {
    await buildIfStale();
    service = await ServiceProcess.start(
      { DATA_DIR: 'memory://', SHUTDOWN_TIMEOUT_MS: String(BOUND_MS), LOG_LEVEL: 'info' },
      'stuck',
    );
  }, 300_000);
  afterAll(async () => {
    await service?.kill('SIGKILL');
  });

  it('exits within SHUTDOWN_TIMEOUT_MS, saying what it was still doing', async () => {
    // A client that announces a body and never sends all of it: the request stays in flight for ever (Node's own
    // request timeout is 5 minutes), so closing the HTTP server waits for it.
    const { connect } = await import('node:net');
    const socket = connect(service!.port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      'POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        'Content-Length: 1000\r\n\r\n{"email":',
    );
    socket.on('error', () => undefined);
    await sleep(200);
    const signalledAt = Date.now();
    const exit = await Promise.race([
      service!.kill('SIGTERM'),
      sleep(BOUND_MS + 8_000).then(() => 'still running'),
    ]);
    socket.destroy();
    expect([exit, service!.output]).toEqual([
      { code: 1, signal: null },
      expect.stringContaining(
        `Shutdown did not finish within ${BOUND_MS} ms (still finishing the requests in flight)`,
      ),
    ]);
    // Not a timing claim: a bound with room for a busy machine, far below the 5 minutes it waited before.
    expect(Date.now() - signalledAt).toBeLessThan(BOUND_MS + 8_000);
  }, 60_000);
});
