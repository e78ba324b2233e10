import type { ThrottlerStorage } from '@nestjs/throttler';
import type { AppConfig } from '../../config/app-config';

/** Failures are counted over this window from the first one. */
export const LOGIN_FAILURE_WINDOW_MS = 15 * 60_000;
/** An address's failures (all emails) are counted over this window from the first one. */
export const ADDRESS_FAILURE_WINDOW_MS = 60_000;
/** The longest a source is made to wait, however many times it failed. */
export const LOGIN_MAX_BACKOFF_MS = 15 * 60_000;
/** Past the email's ceiling, a failed attempt is answered this much later (a guesser's every try costs time). */
export const HOT_EMAIL_FAILURE_DELAY_MS = 1_000;

/** Storages that can read a counter without adding to it, and forget one (both of ours). */
export interface CountingStorage extends ThrottlerStorage {
  peek(key: string): Promise<{ hits: number; timeToExpire: number }>;
  reset(key: string): Promise<void>;
}

/** The attempt as the throttle sees it: the email it names (if any) and where it came from. */
export interface CredentialAttempt {
  email?: string;
  source: string;
}

const keysOf = ({ email, source }: CredentialAttempt) => {
  const who = email === undefined ? `ip:${source}` : `email:${email}|ip:${source}`;
  return {
    pair: `login-failures:${who}`,
    wait: `login-wait:${who}`,
    address: `login-failures:address:${source}`,
    email: email === undefined ? undefined : `login-failures:email:${email}`,
  };
};

/** How long a source waits after `over` failures beyond its allowance: the first wait, doubled each time. */
export const backoffMs = (firstWaitMs: number, over: number): number =>
  Math.min(LOGIN_MAX_BACKOFF_MS, firstWaitMs * 2 ** Math.min(over, 30));

/**
 * Credential throttling that slows a guesser without locking out the owner (OWASP: "account lockout"). Failures
 * are counted per email *and* source: a source past its allowance for an email waits, longer after each further
 * failure; another source with no failures of its own is never refused, so ten (or a thousand) wrong passwords from
 * one place cannot keep the owner out. Per email, a wider ceiling over all sources (a distributed guesser) makes
 * every failing source wait after its first failure and answers failures a second late; it never refuses a source
 * that has not failed. Successes do not count and end the source's failures for that email.
 *
 * Per address, over all emails (a guesser trying one password on many accounts), failures are counted over a minute:
 * past `loginPerMinutePerIp` the address waits out the minute. Successes do not count here either (a campus behind
 * one NAT logs in hundreds of members a minute), and do not forgive: a guesser's own good login must not clear its
 * guesses.
 */
export class CredentialThrottle {
  constructor(
    private readonly storage: CountingStorage,
    private readonly limits: AppConfig['rateLimit'],
  ) {}

  /** Seconds the source must still wait before trying this email again, or 0. */
  async waitSeconds(attempt: CredentialAttempt): Promise<number> {
    const keys = keysOf(attempt);
    const [wait, address] = await Promise.all([this.storage.peek(keys.wait), this.storage.peek(keys.address)]);
    const pairWait = wait.hits > 0 ? Math.max(1, wait.timeToExpire) : 0;
    const addressWait = address.hits >= this.limits.loginPerMinutePerIp ? Math.max(1, address.timeToExpire) : 0;
    return Math.max(pairWait, addressWait);
  }

  /** Records a failed attempt; resolves with how long its answer should be held back (ms). */
  async failed(attempt: CredentialAttempt): Promise<number> {
    const keys = keysOf(attempt);
    await this.increment(keys.address, ADDRESS_FAILURE_WINDOW_MS);
    const pair = await this.increment(keys.pair, LOGIN_FAILURE_WINDOW_MS);
    const perEmail = keys.email ? await this.increment(keys.email, LOGIN_FAILURE_WINDOW_MS) : 0;
    const hot = perEmail >= this.limits.loginFailureCeilingPerEmail;
    const allowance = hot ? 1 : this.limits.loginPer15MinPerEmail;
    const over = pair - allowance;
    if (over >= 0) await this.increment(keys.wait, backoffMs(this.limits.loginBackoffMs, over));
    return hot ? HOT_EMAIL_FAILURE_DELAY_MS : 0;
  }

  /** A correct password: this source's failures for this email are forgiven. */
  async succeeded(attempt: CredentialAttempt): Promise<void> {
    await this.storage.reset(keysOf(attempt).pair);
  }

  private async increment(key: string, ttlMs: number): Promise<number> {
    const record = await this.storage.increment(key, ttlMs, Number.MAX_SAFE_INTEGER, 0, 'login-failures');
    return record.totalHits;
  }
}
