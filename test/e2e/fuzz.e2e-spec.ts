import { ADMIN, TEST_JWT_SECRET, TestApp } from '../support/app';
import { formatReport, Fuzzer, ROLES, type FuzzReport, type Transport } from '../fuzz/fuzzer';
import { hostileTokens, Sessions } from '../fuzz/setup';

/**
 * Hostile input as a tested property: generated requests against every operation of /api/docs.json, as every role
 * (and with hostile tokens). Fixed seed and a budget, so `npm test` stays quick and a failure replays; for long runs
 * with other seeds see `npm run fuzz` (README, "Fuzzing").
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 2000);
const BUDGET_MS = 45_000;

describe('Fuzzing every documented operation', () => {
  let t: TestApp;
  let report: FuzzReport;
  let fuzzer: Fuzzer;

  beforeAll(async () => {
    // A pool checkout may wait longer than the default 1.5 s on a loaded CI machine; that 503 would be load, not a
    // finding (the database-outage suite covers it).
    t = await TestApp.start({ DB_CONNECTION_TIMEOUT_MS: '10000' });
    const transport: Transport = async (request) => {
      const res = await t.app.inject({
        method: request.method as 'GET',
        url: request.url,
        headers: request.headers,
        ...(request.body !== undefined ? { payload: request.body } : {}),
      });
      return { status: res.statusCode, body: res.body, headers: res.headers as Record<string, string> };
    };
    const doc = JSON.parse((await t.app.inject({ method: 'GET', url: '/api/docs.json' })).body);
    const sessions = await new Sessions(transport, ADMIN).prepare();
    fuzzer = new Fuzzer(doc, transport, {
      seed: SEED,
      requests: REQUESTS,
      timeBudgetMs: BUDGET_MS,
      secrets: [TEST_JWT_SECRET, ADMIN.password],
      refreshToken: (role) => sessions.refresh(role),
    });
    fuzzer.setTokens({ ...sessions.tokens }, hostileTokens(sessions.tokens.student, TEST_JWT_SECRET));
    report = await fuzzer.run();
    console.log(formatReport(report, 20));
  }, 240_000);
  afterAll(() => t.close());

  it('answers no request with a 5xx, no invalid request with a 2xx, and leaks nothing', () => {
    expect(report.sent).toBeGreaterThanOrEqual(Math.min(REQUESTS, fuzzer.ops.length * ROLES.length));
    expect(report.findings.length ? formatReport(report, 30) : 'no findings').toBe('no findings');
  });

  it('sent every operation of the document as every role', () => {
    expect(fuzzer.ops.length).toBeGreaterThan(40);
    const missing = fuzzer.ops.flatMap((op) =>
      ROLES.filter((role) => !report.roles.get(op.key)?.has(role)).map((role) => `${op.key} as ${role}`),
    );
    expect(missing).toEqual([]);
    // most of it hostile: the generator is not just sending valid requests
    expect(report.invalidSent / report.sent).toBeGreaterThan(0.4);
  });

  it('still answers /api/live afterwards', async () => {
    expect((await t.get('/live')).status).toBe(200);
  });
});
