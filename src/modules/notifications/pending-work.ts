import { Logger } from '@nestjs/common';

/**
 * Domain events are fire and forget: the request that published one does not wait for its listeners. This keeps
 * the listeners' promises so a failure is logged, and so a test (or a graceful stop) can wait until all have run.
 */
export class PendingWork {
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly logger: Logger) {}

  track(description: string, work: () => Promise<unknown>): void {
    const promise: Promise<void> = work()
      .then(() => undefined)
      .catch((error: unknown) => {
        this.logger.error(
          { reason: (error as Error)?.message, work: description },
          'Notification trigger failed',
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
