import { TestApp } from '../support/app';

/**
 * A campus is one address: a hostel behind one NAT logs its members in at breakfast. The per-address login limit
 * counts failures, as the per-email-and-source throttling does, so correct logins from one address are not refused.
 * (credential-throttling.e2e-spec.ts shows a guesser is still slowed.)
 */
describe('A campus behind one address', () => {
  let t: TestApp;
  beforeAll(async () => {
    // The production defaults of the limits: an empty value is an unset variable (TestApp's are generous).
    t = await TestApp.start({
      LOGIN_RATE_LIMIT_PER_MINUTE: '',
      LOGIN_RATE_LIMIT_PER_EMAIL: '',
      RATE_LIMIT_PER_MINUTE: '',
      // Not a limit under test: on the server engine a burst of 20 logins shares a pool of 10, and on a machine
      // shared by other suites a checkout can wait past the 1.5 s default (3 of 600 were 503 at a load of ~10).
      // TestApp gives the hashing queue and the embedded engine's admission the same room.
      DB_CONNECTION_TIMEOUT_MS: '60000',
    });
  });
  afterAll(() => t?.close());
  // The throttler's windows read the clock: held still, every login below falls in one minute however slow the
  // machine (timers run as usual).
  beforeEach(() =>
    jest.useFakeTimers({
      now: Date.now(),
      doNotFake: [
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'setImmediate',
        'clearImmediate',
        'setInterval',
        'clearInterval',
        'setTimeout',
        'clearTimeout',
      ],
    }),
  );
  afterEach(() => jest.useRealTimers());

  it('600 different members log in correctly from one address within a minute: all 200', async () => {
    const members = [];
    for (let i = 0; i < 600; i += 1) members.push(await t.member('student'));
    const statuses: number[] = [];
    const refusals: [number, unknown][] = [];
    // In bursts, as a dining hall's phones send them.
    for (let i = 0; i < members.length; i += 20) {
      const burst = members.slice(i, i + 20);
      const answers = await Promise.all(
        burst.map(({ email, password }) => t.post('/auth/login', { email, password })),
      );
      statuses.push(...answers.map((res) => res.status));
      refusals.push(
        ...answers
          .filter((res) => res.status !== 200)
          .map((res): [number, unknown] => [res.status, res.body]),
      );
    }
    expect(refusals).toEqual([]);
    expect(statuses).toHaveLength(600);
  }, 600_000);

  it('a failure past the address limit is refused: the address waits out its minute', async () => {
    // Past the general limit's minute of the logins above.
    jest.setSystemTime(Date.now() + 61_000);
    const statuses: number[] = [];
    for (let i = 0; i < 30; i += 1)
      statuses.push(
        (await t.post('/auth/login', { email: `nobody${i}@test.local`, password: 'guess-1' })).status,
      );
    expect(statuses).toEqual(Array(30).fill(404));
    const refused = await t.post('/auth/login', { email: 'nobody-else@test.local', password: 'guess-1' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
  });
});
