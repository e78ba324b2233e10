import { METRICS_TOKEN_REQUIRED } from '../../src/modules/health/health.errors';
import { messSetup, TestApp } from '../support/app';
import { usingServer } from '../support/database';
import { MailServer } from '../support/mail-server';
import { notificationsOf } from '../support/notifications';
import { ExpositionError, type Family, histogramSeries, parseExposition } from '../support/prometheus-text';

/** Scrapes the service and parses the exposition strictly (test/support/prometheus-text.ts), by family name. */
async function scrape(t: TestApp, token?: string): Promise<Map<string, Family>> {
  const res = await t.get('/metrics/prometheus', token ? { token } : {});
  expect(res.status).toBe(200);
  expect(String(res.headers['content-type'])).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(res.body as string);
}

/** The value of the family's sample whose labels include `labels`. */
const value = (family: Family | undefined, labels: Record<string, string> = {}): number | undefined =>
  family?.samples.find((m) => Object.entries(labels).every(([key, v]) => m.labels[key] === v))?.value;

describe('The strict exposition parser', () => {
  it('refuses what the text format does not allow', () => {
    const bad = [
      'x{a="1"} 1\nx{a="1"} 2', // the same series twice
      '# TYPE x counter\n# TYPE x gauge\nx 1', // two types
      'x{a="\\q"} 1', // an escape the format lacks
      'x{a="1" 1', // unterminated labels
      'x one', // not a number
      '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1', // not cumulative
      '# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1', // no +Inf bucket
      'a 1\nb 1\na{x="y"} 1', // a family split in two groups
    ];
    for (const text of bad) expect(() => parseExposition(text)).toThrow(ExpositionError);
    const good = parseExposition(
      '# HELP h A histogram\n# TYPE h histogram\nh_bucket{le="0.1",route="/a"} 1\nh_bucket{le="+Inf",route="/a"} 2\n' +
        'h_sum{route="/a"} 0.3\nh_count{route="/a"} 2\nup{job="x\\"y\\n"} NaN 1700000000000\n',
    );
    expect(histogramSeries(good.get('h')!)).toEqual([
      {
        labels: { route: '/a' },
        buckets: new Map([
          [0.1, 1],
          [Infinity, 2],
        ]),
        sum: 0.3,
        count: 2,
      },
    ]);
    expect(good.get('up')!.samples[0]).toEqual({
      name: 'up',
      labels: { job: 'x"y\n' },
      value: NaN,
      timestamp: 1700000000000,
    });
  });
});

describe('Prometheus exposition', () => {
  const mail = new MailServer();
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    await mail.start();
    t = await TestApp.start({ ...mail.env(), LOGIN_RATE_LIMIT_PER_EMAIL: '2' });
    admin = await t.adminToken();
    expect((await t.post('/auth/admin/setup', messSetup(), { token: admin })).status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await mail.stop();
  });

  it('times requests by method, route template and status, never by raw URL', async () => {
    const created = await t.post(
      '/expenses',
      { category: 'Gas', amount: 120.5, date: '2025-03-04', description: 'Cylinder' },
      { token: admin },
    );
    expect(created.status).toBe(201);
    const id = created.body.expense._id as string;
    expect((await t.get(`/expenses/${id}`, { token: admin })).status).toBe(200);
    expect((await t.get(`/expenses/${id}`, { token: admin })).status).toBe(200);
    expect((await t.get('/expenses/not-a-uuid', { token: admin })).status).toBe(400);
    expect((await t.get(`/no-such-route/${id}`)).status).toBe(404);

    const families = await scrape(t);
    const histogram = families.get('mess_http_request_duration_seconds')!;
    expect(histogram.type).toBe('histogram');
    const series = histogramSeries(histogram);
    const find = (labels: Record<string, string>) =>
      series.find((m) => Object.entries(labels).every(([k, v]) => m.labels[k] === v));
    expect(series.map((m) => m.labels)).toContainEqual({
      method: 'GET',
      route: '/api/expenses/:id',
      status: '200',
    });
    const byId = find({ method: 'GET', route: '/api/expenses/:id', status: '200' })!;
    expect(byId.count).toBe(2);
    expect(byId.sum).toBeGreaterThan(0);
    expect(find({ method: 'GET', route: '/api/expenses/:id', status: '400' })).toBeDefined();
    expect(find({ method: 'POST', route: '/api/expenses', status: '201' })).toBeDefined();
    expect(find({ method: 'GET', route: 'unmatched', status: '404' })).toBeDefined();
    // No label value carries an id or a URL someone typed.
    const labelValues = [...families.values()].flatMap((f) =>
      f.samples.flatMap((m) => Object.values(m.labels)),
    );
    expect(labelValues.filter((v) => v.includes(id) || v.includes('no-such-route'))).toEqual([]);
  });

  it('reports requests in flight, the database pool and the job queue', async () => {
    const families = await scrape(t);
    // The scrape itself is the one request in flight.
    expect(value(families.get('mess_http_requests_in_flight'))).toBe(1);
    const engine = usingServer() ? 'server' : 'embedded';
    const inUse = value(families.get('mess_db_pool_in_use'), { engine })!;
    const idle = value(families.get('mess_db_pool_idle'), { engine })!;
    const max = value(families.get('mess_db_pool_max'), { engine })!;
    expect(value(families.get('mess_db_pool_waiting'), { engine })).toBe(0);
    if (engine === 'embedded') expect([inUse, idle, max]).toEqual([1, 0, 1]);
    else {
      expect(max).toBe(10);
      expect(inUse + idle).toBeGreaterThanOrEqual(1);
      expect(inUse + idle).toBeLessThanOrEqual(max);
    }
    expect(families.get('mess_job_queue_jobs')?.type).toBe('gauge');
    for (const state of ['queued', 'retrying', 'failed', 'sent'])
      expect(value(families.get('mess_job_queue_jobs'), { state })).toEqual(expect.any(Number));
    expect(value(families.get('mess_job_queue_up'))).toBe(1);
    // Process metrics and the event loop's lag (prom-client's default collectors).
    expect(value(families.get('process_cpu_user_seconds_total'))).toBeGreaterThan(0);
    expect(value(families.get('nodejs_eventloop_lag_seconds'))).toBeGreaterThanOrEqual(0);
    expect(families.get('nodejs_eventloop_lag_p99_seconds')).toBeDefined();
  });

  it('counts notification deliveries by type, channel and outcome', async () => {
    const manager = await t.member('manager');
    const before = await scrape(t);
    const recorded = await t.post(
      '/expenses',
      { category: 'Groceries', amount: 300, date: '2025-03-05', description: 'Rice' },
      { token: admin },
    );
    expect(recorded.status).toBe(201);
    await notificationsOf(t).settle();
    expect(mail.received.some((m) => m.to.includes(manager.email))).toBe(true);

    const after = await scrape(t);
    const deliveries = after.get('mess_notification_deliveries_total')!;
    expect(deliveries.type).toBe('counter');
    const sent = { type: 'EXPENSE_ADDED', channel: 'email', outcome: 'sent' };
    const was = value(before.get('mess_notification_deliveries_total'), sent) ?? 0;
    expect(value(deliveries, sent)).toBeGreaterThanOrEqual(was + 1);
    expect(after.get('mess_notification_fallbacks_total')?.type).toBe('counter');
    const queued = value(after.get('mess_job_queue_jobs'), { state: 'sent' })!;
    expect(queued).toBeGreaterThanOrEqual(1);
  });

  it('counts cache hits and misses, and rate-limit blocks', async () => {
    const before = await scrape(t);
    for (let i = 0; i < 2; i += 1)
      expect((await t.get('/analytics/shares?month=2025-03', { token: admin })).status).toBe(200);
    for (let i = 0; i < 3; i += 1)
      await t.post('/auth/login', { email: 'nobody@test.local', password: 'wrong-password-1' });
    const after = await scrape(t);
    const grew = (name: string) => (value(after.get(name)) ?? 0) - (value(before.get(name)) ?? 0);
    expect(after.get('mess_cache_hits_total')?.type).toBe('counter');
    expect(grew('mess_cache_hits_total')).toBeGreaterThanOrEqual(1);
    expect(grew('mess_cache_hits_total') + grew('mess_cache_misses_total')).toBeGreaterThanOrEqual(2);
    expect(grew('mess_rate_limit_blocked_total')).toBeGreaterThanOrEqual(1);
  });
});

describe('Prometheus exposition behind METRICS_TOKEN', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ METRICS_TOKEN: 'scrape-secret-0123456789' });
  }, 120_000);
  afterAll(() => t?.close());

  it('answers 401 without the token or with another, and the exposition with it', async () => {
    for (const token of [undefined, 'another-secret-0123456789']) {
      const res = await t.get('/metrics/prometheus', token ? { token } : {});
      expect([res.status, res.body]).toEqual([401, { success: false, error: METRICS_TOKEN_REQUIRED }]);
    }
    const families = await scrape(t, 'scrape-secret-0123456789');
    expect(families.get('mess_http_request_duration_seconds')).toBeDefined();
    // The JSON metrics of the contract stay public.
    expect((await t.get('/metrics')).status).toBe(200);
  });
});
