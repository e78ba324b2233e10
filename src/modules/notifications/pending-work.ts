import { Logger } from '@nestjs/common';
import { Outages } from '../../common/outages/outages';

/**
 * Domain events are fire and forget: the request that published one does not wait for its listeners. This keeps
 * the listeners' promises so a failure is logged (losing the database as the outage's one warning, like every
 * background job's), and so a test (or a graceful stop) can wait until all have run.
 */
export class PendingWork {
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly logger: Logger,
    private readonly outages: Outages,
  ) {}

  track(description: string, work: () => Promise<unknown>): void {
    const promise: Promise<void> = work()
      .then(() => undefined)
      .catch((error: unknown) => {
        this.outages.jobFailed(
          error,
          `the ${description} notification`,
          this.logger,
          'Notification trigger failed',
          {
            work: description,
          },
        );
      })
      .finally(() => this.running.delete(promise));
    this.running.add(promise);
  }

  /** Resolves once every tracked piece of work, and any it started, has finished. */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running]);
  }
}
