import { Logger, OnModuleDestroy } from '@nestjs/common';
import { isDatabaseUnavailable } from '../errors/database-errors';

/** What the service depends on and may lose. */
export type Dependency = 'database' | 'Redis';

const NAMES: Record<Dependency, string> = { database: 'The database', Redis: 'Redis' };

/** How often a dependency that is away is reported while it stays away. */
export const OUTAGE_REPORT_MS = 30_000;
/** How often a dependency that is away is tried, so its return is noticed without waiting for a request. */
export const OUTAGE_RECHECK_MS = 2_000;

interface Outage {
  since: number;
  /** Failures (requests answered 503, probes, job-queue errors) since the last line. */
  failures: number;
  reportedAt: number;
  timer: NodeJS.Timeout;
}

/**
 * Why something failed, in words fit for a log: the innermost cause's code and first line, never a query's text
 * or parameters (Drizzle's "Failed query: … params: …" wrapper is skipped).
 */
export function failureReason(error: unknown): string {
  let current: unknown = error;
  let reason = 'unknown error';
  for (let depth = 0; depth < 6 && current; depth += 1) {
    const candidate = current as { code?: unknown; message?: unknown; cause?: unknown };
    const message = typeof candidate.message === 'string' ? candidate.message.split('\n')[0] : '';
    const code = typeof candidate.code === 'string' ? candidate.code : undefined;
    if (!/^Failed query/i.test(message) && (message || code)) {
      reason = [code, message.slice(0, 200)].filter(Boolean).join(': ');
    }
    current = candidate.cause;
  }
  return reason;
}

/**
 * One account of each outage for an operator, whoever notices it (a request's 503, the readiness probe, the job
 * queue, the Redis client): one warning when the dependency goes away, a count every 30 s while it stays away, one
 * line when it is back with how long it was gone. Everything in between is counted, not logged, so a silent
 * database at 3 a.m. is three lines, not thousands.
 */
export class Outages implements OnModuleDestroy {
  private readonly logger = new Logger('Outages');
  private readonly current = new Map<Dependency, Outage>();
  private readonly probes = new Map<Dependency, () => Promise<unknown>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** How to tell that a dependency is back (tried every OUTAGE_RECHECK_MS while it is away). */
  watch(dependency: Dependency, probe: () => Promise<unknown>): void {
    this.probes.set(dependency, probe);
  }

  /**
   * A background job failed (a schedule, the job queue, the gateway inbox): losing the database is its outage (one
   * line for all of it, whoever notices), anything else the job's own error, with `details` (which month, which
   * work). Only the reason is logged, never the query or its parameters.
   */
  jobFailed(
    error: unknown,
    noticedBy: string,
    logger: Logger,
    message: string,
    details: Record<string, unknown> = {},
  ): void {
    if (isDatabaseUnavailable(error)) this.down('database', failureReason(error), noticedBy);
    else logger.error({ ...details, reason: failureReason(error) }, message);
  }

  /** Something failed because the dependency is away. */
  down(dependency: Dependency, reason: string, noticedBy: string): void {
    const outage = this.current.get(dependency);
    if (outage) {
      outage.failures += 1;
      return;
    }
    const since = this.now();
    const timer = setInterval(() => void this.tick(dependency), OUTAGE_RECHECK_MS);
    timer.unref();
    this.current.set(dependency, { since, failures: 1, reportedAt: since, timer });
    this.logger.warn({ dependency, reason, noticedBy }, `${NAMES[dependency]} is unavailable: ${reason}`);
  }

  /** Something worked: the dependency is back, if it was away. */
  up(dependency: Dependency): void {
    const outage = this.current.get(dependency);
    if (!outage) return;
    clearInterval(outage.timer);
    this.current.delete(dependency);
    const seconds = (this.now() - outage.since) / 1000;
    this.logger.log(
      { dependency, outageSeconds: Number(seconds.toFixed(1)), failuresSinceLastReport: outage.failures },
      `${NAMES[dependency]} is back after ${seconds.toFixed(1)} s`,
    );
  }

  private async tick(dependency: Dependency): Promise<void> {
    const outage = this.current.get(dependency);
    if (!outage) return;
    const probe = this.probes.get(dependency);
    if (probe) {
      try {
        await probe();
        this.up(dependency);
        return;
      } catch {
        // still away
      }
    }
    if (!this.current.has(dependency) || this.now() - outage.reportedAt < OUTAGE_REPORT_MS) return;
    const seconds = Math.round((this.now() - outage.since) / 1000);
    this.logger.warn(
      { dependency, outageSeconds: seconds, failuresSinceLastReport: outage.failures },
      `${NAMES[dependency]} is still unavailable (${seconds} s; ${outage.failures} failures since the last report)`,
    );
    outage.failures = 0;
    outage.reportedAt = this.now();
  }

  onModuleDestroy(): void {
    for (const outage of this.current.values()) clearInterval(outage.timer);
    this.current.clear();
  }
}
