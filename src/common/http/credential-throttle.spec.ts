import { backoffMs, CredentialThrottle, HOT_EMAIL_FAILURE_DELAY_MS } from './credential-throttle';
import { MemoryRateLimitStorage } from './rate-limit';

const limits = {
  perMinute: 600,
  loginPerMinutePerIp: 30,
  loginPer15MinPerEmail: 5,
  loginFailureCeilingPerEmail: 50,
  loginBackoffMs: 30_000,
};

describe('CredentialThrottle', () => {
  let storage: MemoryRateLimitStorage;
  let throttle: CredentialThrottle;
  const attacker = { email: 'admin@college.edu', source: '203.0.113.9' };
  const owner = { email: 'admin@college.edu', source: '198.51.100.4' };

  beforeEach(() => {
    jest.useFakeTimers({ now: new Date('2026-11-25T10:00:00Z') });
    storage = new MemoryRateLimitStorage();
    throttle = new CredentialThrottle(storage, limits);
  });
  afterEach(() => {
    storage.onModuleDestroy();
    jest.useRealTimers();
  });

  /** The attacker guesses whenever allowed; returns the waits it was given, in seconds. */
  async function guessFor(ms: number, who = attacker): Promise<number[]> {
    const waits: number[] = [];
    const until = Date.now() + ms;
    while (Date.now() < until) {
      const wait = await throttle.waitSeconds(who);
      if (wait > 0) {
        waits.push(wait);
        jest.advanceTimersByTime(wait * 1000);
      } else {
        await throttle.failed(who);
      }
    }
    return waits;
  }

  it('lets a source fail its allowance, then makes it wait twice as long after each further failure', async () => {
    for (let i = 0; i < 4; i += 1) {
      await throttle.failed(attacker);
      expect(await throttle.waitSeconds(attacker)).toBe(0);
    }
    const waits = await guessFor(14 * 60_000);
    expect(waits.slice(0, 5)).toEqual([30, 60, 120, 240, 480]);
  });

  it('never refuses the owner from a source with no failures, however long the attack', async () => {
    await guessFor(60 * 60_000);
    expect(await throttle.waitSeconds(owner)).toBe(0);
    expect(await throttle.waitSeconds({ email: 'other@college.edu', source: attacker.source })).toBe(0);
  });

  it('forgives a source its failures once it gives the right password', async () => {
    for (let i = 0; i < 4; i += 1) await throttle.failed(owner);
    await throttle.succeeded(owner);
    for (let i = 0; i < 4; i += 1) await throttle.failed(owner);
    expect(await throttle.waitSeconds(owner)).toBe(0);
  });

  it('past the per-email ceiling, every failing source waits after one failure and failures answer late', async () => {
    for (let i = 0; i < 50; i += 1) await throttle.failed({ email: attacker.email, source: `10.0.${i}.1` });
    const fresh = { email: attacker.email, source: '10.9.9.9' };
    expect(await throttle.failed(fresh)).toBe(HOT_EMAIL_FAILURE_DELAY_MS);
    expect(await throttle.waitSeconds(fresh)).toBe(30);
    expect(await throttle.waitSeconds(owner)).toBe(0);
  });

  it("counts an address's failures over all emails, never its successes, and a success forgives none", async () => {
    const campus = '100.64.0.1';
    for (let i = 0; i < 600; i += 1) await throttle.succeeded({ email: `m${i}@college.edu`, source: campus });
    for (let i = 0; i < 29; i += 1) await throttle.failed({ email: `sprayed${i}@college.edu`, source: campus });
    expect(await throttle.waitSeconds({ email: 'fresh@college.edu', source: campus })).toBe(0);
    await throttle.succeeded({ email: 'm1@college.edu', source: campus });
    await throttle.failed({ email: 'sprayed29@college.edu', source: campus });
    expect(await throttle.waitSeconds({ email: 'fresh@college.edu', source: campus })).toBe(60);
    expect(await throttle.waitSeconds({ email: 'fresh@college.edu', source: owner.source })).toBe(0);
    jest.advanceTimersByTime(60_000);
    expect(await throttle.waitSeconds({ email: 'fresh@college.edu', source: campus })).toBe(0);
  });

  it('caps a wait at 15 minutes', () => {
    expect(backoffMs(30_000, 0)).toBe(30_000);
    expect(backoffMs(30_000, 4)).toBe(480_000);
    expect(backoffMs(30_000, 5)).toBe(900_000);
    expect(backoffMs(30_000, 500)).toBe(900_000);
  });
});
