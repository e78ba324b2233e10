import type { Logger } from '@nestjs/common';
import { isDatabaseUnavailable } from '../errors/database-errors';
import type { Outages } from '../outages/outages';
import { inMess } from './mess-scope';

/** Where `inEveryMess` reports a mess whose work failed: the job's logger, through the outages' account. */
export interface EveryMessReport {
  outages: Outages;
  logger: Logger;
  /** The line logged for a mess whose work failed (with the job, the mess id and the reason, never the query). */
  message: string;
}

/**
 * The one way to do a job's work in every mess (a schedule, a sweep): `work` runs in each mess in turn (`inMess`),
 * and one mess's failure does not hold up the others. A failure in a mess is that mess's: it is reported once
 * (`Outages.jobFailed`, naming the job and the mess id, only the reason logged) and the next mess goes on. Losing
 * the database is not a mess's failure but every mess's: it stops at once and is rethrown, so the job's own
 * `jobFailed` counts it as the outage (one warning for all of it), and nothing tries the messes left.
 *
 * Returns what `work` gave in each mess where it succeeded, by mess id, in the order the messes were given.
 */
export async function inEveryMess<T>(
  messIds: Iterable<string>,
  job: string,
  work: (messId: string) => Promise<T> | T,
  report: EveryMessReport,
): Promise<Map<string, T>> {
  const done = new Map<string, T>();
  for (const messId of messIds) {
    try {
      done.set(messId, await inMess(messId, () => work(messId)));
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw error;
      report.outages.jobFailed(error, job, report.logger, report.message, { job, messId });
    }
  }
  return done;
}
