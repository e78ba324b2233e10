import { sql } from 'drizzle-orm';
import { AppConfig } from '../../src/config/app-config';
import { Database } from '../../src/database/database';
import { TestApp } from '../support/app';
import { freshDatabase, usingServer } from '../support/database';
import { TcpProxy } from '../support/tcp-proxy';

describe('Health, readiness, liveness and metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start();
  });
  afterAll(() => t?.close());

  it('GET /health merges both shapes of the contract', async () => {
    const res = await t.get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'ok',
      dbState: 1,
      timestamp: expect.any(String),
      database: {
        status: 'up',
        engine: usingServer() ? 'server' : 'embedded',
        responseTimeMs: expect.any(Number),
      },
      memory: { rss: expect.any(Number), heapTotal: expect.any(Number), heapUsed: expect.any(Number) },
      cache: {
        hits: expect.any(Number),
        misses: expect.any(Number),
        hitRate: expect.stringMatching(/^\d+\.\d{2}%$/),
      },
      overall: 'healthy',
    });
    expect(new Date(res.body.timestamp).toString()).not.toBe('Invalid Date');
  });

  it('lets the event loop turn before each statement, also in a transaction (new connections are accepted meanwhile)', async () => {
    const { db } = t.app.get(Database);
    let turns = 0;
    let counting = true;
    const count = () => {
      if (!counting) return;
      turns += 1;
      setImmediate(count);
    };
    setImmediate(count);
    for (let i = 0; i < 5; i += 1) await db.execute(sql`select 1`);
    await db.transaction(async (tx) => {
      for (let i = 0; i < 5; i += 1) await tx.execute(sql`select 1`);
    });
    counting = false;
    // Ten statements and the transaction's own begin and commit: the loop went round at least once for each. (On
    // PGlite without those turns, every statement settles in microtasks and the loop does not go round at all.)
    expect(turns).toBeGreaterThanOrEqual(10);
  });

  it('GET /ready, /live and the /health/* probes answer without a token', async () => {
    const ready = await t.get('/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ok', info: { database: { status: 'up' } } });
    expect((await t.get('/live')).body).toEqual({ status: 'alive', uptime: expect.any(Number) });
    expect((await t.get('/health/db')).body.info.database.status).toBe('up');
    expect((await t.get('/health/cache')).body.info.cache).toMatchObject({
      status: 'up',
      hitRate: expect.any(String),
    });
    const jobs = (await t.get('/health/jobs')).body.info.jobs;
    expect(jobs).toMatchObject({
      status: 'up',
      pending: expect.any(Number),
      failed: expect.any(Number),
      processed: expect.any(Number),
    });
  });

  it('GET /metrics reports the contract numbers over recent requests', async () => {
    for (let i = 0; i < 20; i += 1) await t.get('/live');
    await t.get('/users/not-a-uuid'); // an error that is not a 5xx
    const res = await t.get('/metrics');
    expect(res.status).toBe(200);
    const { uptime, memory, performance } = res.body;
    expect(uptime).toEqual(expect.any(Number));
    expect(memory).toEqual({
      rss: expect.any(Number),
      heapTotal: expect.any(Number),
      heapUsed: expect.any(Number),
    });
    expect(performance.avgResponseTime).toBeGreaterThan(0);
    expect(performance.p95ResponseTime).toBeGreaterThan(0);
    expect(performance.p99ResponseTime).toBeGreaterThanOrEqual(performance.p95ResponseTime);
    expect(performance.requestsPerSecond).toBeGreaterThan(0);
    expect(performance.errorRate).toBe(0);
  });

  it('GET /admin/health-summary is for admins and counts rate-limited requests', async () => {
    const student = await t.member();
    expect((await t.get('/admin/health-summary', { token: student.token })).body).toEqual({
      error: 'Forbidden',
    });
    const res = await t.get('/admin/health-summary', { token: await t.adminToken() });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      status: 'healthy',
      reasons: [],
      cache: { hits: expect.any(Number), misses: expect.any(Number), hitRate: expect.any(String) },
      jobQueue: { pending: expect.any(Number), failed: expect.any(Number), processed: expect.any(Number) },
      rateLimiter: { blockedRequests: 0, totalRequests: expect.any(Number) },
    });
    expect(res.body.rateLimiter.totalRequests).toBeGreaterThan(0);
  });
});

describe('Login throttling', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ LOGIN_RATE_LIMIT_PER_EMAIL: '5', LOGIN_RATE_LIMIT_PER_MINUTE: '8' });
  });
  afterAll(() => t?.close());

  it('limits attempts per email, then per IP, with 429 and Retry-After', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      statuses.push(
        (await t.post('/auth/login', { email: 'victim@test.local', password: `guess-${i}` })).status,
      );
    }
    expect(statuses).toEqual([404, 404, 404, 404, 404, 429]);
    const limited = await t.post('/auth/login', { email: 'victim@test.local', password: 'guess' });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ success: false, error: 'Too many requests; try again later' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);

    // other emails from the same address: the per-IP limit (8 failures a minute) stops them soon after
    const others: number[] = [];
    for (let i = 0; i < 4; i += 1)
      others.push((await t.post('/auth/login', { email: `other${i}@test.local`, password: 'x' })).status);
    expect(others).toEqual([404, 404, 404, 429]);
  });
});

describe('Login throttling per email counts failures only', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ LOGIN_RATE_LIMIT_PER_EMAIL: '3' });
  });
  afterAll(() => t?.close());

  it('never throttles a member who logs in successfully, and stops a guesser after the limit', async () => {
    const member = await t.member();
    for (let i = 0; i < 6; i += 1) {
      expect((await t.post('/auth/login', { email: member.email, password: member.password })).status).toBe(
        200,
      );
    }
    const guesses: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      guesses.push((await t.post('/auth/login', { email: member.email, password: `guess-${i}` })).status);
    }
    expect(guesses).toEqual([401, 401, 401, 429]);
    // validation failures are not guesses and are not counted against another email
    const other = await t.member();
    expect((await t.post('/auth/login', { email: other.email })).status).toBe(400);
    expect((await t.post('/auth/login', { email: other.email, password: other.password })).status).toBe(200);
  });
});

describe('Readiness against a PostgreSQL server that goes away', () => {
  const run = usingServer() ? it : it.skip;
  let t: TestApp | undefined;
  let proxy: TcpProxy | undefined;
  afterAll(async () => {
    await proxy?.forward();
    await t?.close();
    await proxy?.close();
  });

  run('answers 503 within 2 s while the database is unreachable, and 200 again when it is back', async () => {
    const db = await freshDatabase();
    const target = new URL(db.url!);
    proxy = await new TcpProxy(target.hostname, Number(target.port || 5432)).start();
    const viaProxy = new URL(db.url!);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    t = await TestApp.start(
      { DATABASE_URL: viaProxy.toString() },
      { ...db, url: viaProxy.toString(), drop: db.drop },
    );
    expect((await t.get('/ready')).status).toBe(200);

    for (const outage of ['refuse', 'hang'] as const) {
      await proxy[outage]();
      const started = Date.now();
      const ready = await t.get('/ready');
      expect(Date.now() - started).toBeLessThan(2000);
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ status: 'error', error: { database: { status: 'down' } } });
      // public probes name the kind of failure, never the driver's text (host, port, user)
      expect(['unreachable', `did not answer within ${t.app.get(AppConfig).readyTimeoutMs} ms`]).toContain(
        ready.body.error.database.message,
      );
      const db = await t.get('/health/db');
      expect(db.status).toBe(503);
      for (const body of [JSON.stringify(ready.body), JSON.stringify(db.body)]) {
        expect(body).not.toContain(String(proxy!.port));
        expect(body).not.toMatch(/ECONN|127\.0\.0\.1|postgres/i);
      }
      expect((await t.get('/live')).status).toBe(200);
      const health = await t.get('/health');
      expect(health.status).toBe(503);
      expect(health.body).toMatchObject({ status: 'error', dbState: 0, overall: 'unhealthy' });

      await proxy.forward();
      let status = 0;
      for (let i = 0; i < 20 && status !== 200; i += 1) {
        status = (await t.get('/ready')).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe(200);
    }
  });
});
