import type { Logger } from '@nestjs/common';
import { isDatabaseUnavailable } from '../common/errors/database-errors';
import { failureReason } from '../common/outages/outages';

export interface StartUpRetry {
  /** How long a step may keep failing for want of the database before the start-up fails; 0 tries once. */
  deadlineMs: number;
  logger: Pick<Logger, 'warn' | 'log'>;
  /** Injected by tests; the real one sleeps. */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 2_000;

/**
 * Runs one step of the start-up (migrate, open the job queue) again while it fails because the database cannot serve
 * now (isDatabaseUnavailable: a primary switching over, 57P01 on a connection the old primary ended, 25006 on one
 * that reached the standby, a server still starting), with pauses doubling from 250 ms to 2 s, until `deadlineMs`
 * has passed since the first try; then the last error fails the start-up as before. Any other error fails at once.
 * Each step must be safe to run again after a failure part-way (every one here is: migrations run in a transaction
 * under a lock, the queue's set-up is idempotent).
 */
export async function retryWhileUnavailable<T>(
  step: string,
  work: () => Promise<T>,
  { deadlineMs, logger, sleep = (ms) => new Promise((done) => setTimeout(done, ms)), now = Date.now }: StartUpRetry,
): Promise<T> {
  const started = now();
  let pause = FIRST_PAUSE_MS;
  for (let attempt = 1; ; attempt += 1) {
    try {
      const result = await work();
      if (attempt > 1) logger.log(`${step}: done at attempt ${attempt}, ${now() - started} ms after the first`);
      return result;
    } catch (error) {
      const waited = now() - started;
      if (!isDatabaseUnavailable(error) || waited + pause > deadlineMs) throw error;
      logger.warn(
        `${step}: the database cannot serve now (${failureReason(error)}); trying again in ${pause} ms ` +
          `(attempt ${attempt}, ${waited} ms of DB_START_RETRY_SECONDS=${Math.round(deadlineMs / 1000)} used)`,
      );
      await sleep(pause);
      pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    }
  }
}
