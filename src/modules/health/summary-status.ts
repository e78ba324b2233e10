import { FAILED_JOBS_WINDOW_HOURS, type JobCounts } from '../../common/stats/service-stats';

export const SUMMARY_STATUSES = ['healthy', 'degraded', 'unhealthy'] as const;
export type SummaryStatus = (typeof SUMMARY_STATUSES)[number];

/** The rule of `/admin/health-summary`, in words for the docs and the README. */
export const SUMMARY_STATUS_RULE =
  '`unhealthy` when the database does not answer; else `degraded` when at least one notification delivery job ' +
  `failed for good within the last ${FAILED_JOBS_WINDOW_HOURS} hours; else \`healthy\`. \`reasons\` says why ` +
  '(empty when healthy). Older failures stay counted in `jobQueue.failed` but no longer degrade the status.';

/** The summary's status and the reasons for it, from the database check and the job counts. */
export function summaryStatus(
  databaseUp: boolean,
  jobs: JobCounts,
): { status: SummaryStatus; reasons: string[] } {
  const reasons: string[] = [];
  if (!databaseUp) reasons.push('The database does not answer');
  if (jobs.failedRecently > 0)
    reasons.push(
      `${jobs.failedRecently} notification ${jobs.failedRecently === 1 ? 'delivery' : 'deliveries'} failed in the last ${FAILED_JOBS_WINDOW_HOURS} hours`,
    );
  const status = !databaseUp ? 'unhealthy' : reasons.length ? 'degraded' : 'healthy';
  return { status, reasons };
}
