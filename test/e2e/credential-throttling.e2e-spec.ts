import { ADMIN, TestApp } from '../support/app';

/** A stranger guessing the admin's password cannot keep the admin out (OWASP: slow the attacker, not the owner). */
describe('Credential throttling that cannot be turned against the owner', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({
      TRUST_PROXY: '1',
      LOGIN_RATE_LIMIT_PER_EMAIL: '10',
      LOGIN_RATE_LIMIT_PER_MINUTE: '1000',
    });
  });
  afterAll(() => t?.close());

  // The ingress appends the address it saw (TRUST_PROXY=1): one address per source.
  const from = (source: string) => ({ headers: { 'x-forwarded-for': source } });
  const attempt = (password: string, source: string) =>
    t.post('/auth/login', { email: ADMIN.email, password }, from(source));

  it('ten, then a hundred wrong passwords from one source: the owner logs in from another at once', async () => {
    const first = [];
    for (let i = 0; i < 10; i += 1) first.push((await attempt(`guess-${i}`, '203.0.113.66')).status);
    expect(first).toEqual(Array(10).fill(401));
    expect((await attempt(ADMIN.password, '198.51.100.20')).status).toBe(200);

    const more: { status: number; retryAfter: number }[] = [];
    for (let i = 0; i < 100; i += 1) {
      const res = await attempt(`guess-more-${i}`, '203.0.113.66');
      more.push({ status: res.status, retryAfter: Number(res.headers['retry-after'] ?? 0) });
    }
    // The attacking source waits (429 with Retry-After, 30 s after its allowance); no guess gets through meanwhile.
    expect(more.every((r) => r.status === 429)).toBe(true);
    expect(more[0].retryAfter).toBeGreaterThan(0);
    expect(more[0].retryAfter).toBeLessThanOrEqual(30);

    const owner = await attempt(ADMIN.password, '198.51.100.20');
    expect(owner.status).toBe(200);
    // and from any other place that has not failed
    expect((await attempt(ADMIN.password, '192.0.2.1')).status).toBe(200);
    // the attacker's own source is still waiting, whatever it sends
    expect((await attempt(ADMIN.password, '203.0.113.66')).status).toBe(429);
  });

  it('many sources guessing one email slow each other, never the owner', async () => {
    const email = ADMIN.email;
    const statuses = new Set<number>();
    for (let i = 0; i < 30; i += 1) {
      const res = await t.post('/auth/login', { email, password: 'wrong' }, from(`10.1.${i}.1`));
      statuses.add(res.status);
    }
    expect([...statuses]).toEqual([401]);
    expect((await attempt(ADMIN.password, '192.0.2.77')).status).toBe(200);
  });
});
