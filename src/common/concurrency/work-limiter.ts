import { HttpStatus } from '@nestjs/common';
import { ApiError } from '../errors/api-error';

export const BUSY = 'The service is busy; try again shortly';

/** Refused because the work waited longer than its deadline for a slot: 503 with Retry-After. */
export class WorkQueueTimeoutError extends ApiError {
  constructor(readonly retryAfter: number) {
    super(HttpStatus.SERVICE_UNAVAILABLE, BUSY);
  }
  override getResponse(): object {
    return { ...(super.getResponse() as object), retryAfter: this.retryAfter };
  }
}

/**
 * Runs CPU-heavy work (password hashing) at most `concurrency` at a time; the rest wait in arrival order, each at
 * most `maxWaitMs`, after which it is refused with WorkQueueTimeoutError instead of answering late. So a burst of
 * logins keeps to its cores and every other request keeps at least one.
 */
export class WorkLimiter {
  private running = 0;
  private readonly waiting: { start: () => void }[] = [];

  constructor(
    readonly concurrency: number,
    readonly maxWaitMs: number,
    /** Beyond this many waiting, new work is refused at once (503) rather than queued to time out later. */
    readonly maxWaiting = Number.POSITIVE_INFINITY,
  ) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('concurrency must be at least 1');
  }

  /** Work in progress and work waiting, for tests and metrics. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  /**
   * A slot for work whose end is not a promise (an HTTP request, ended by its response): resolves with the function
   * that gives the slot back (calling it again does nothing), or rejects like `run`.
   */
  async enter(): Promise<() => void> {
    await this.acquire();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release();
    };
  }

  private retryAfter(): number {
    return Math.max(1, Math.ceil(this.maxWaitMs / 1000));
  }

  private acquire(): Promise<void> {
    if (this.running < this.concurrency) {
      this.running += 1;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.maxWaiting)
      return Promise.reject(new WorkQueueTimeoutError(this.retryAfter()));
    return new Promise<void>((resolve, reject) => {
      const entry = {
        start: () => {
          clearTimeout(timer);
          resolve(); // the releasing work hands its slot over: `running` stays as it is
        },
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(entry), 1);
        reject(new WorkQueueTimeoutError(this.retryAfter()));
      }, this.maxWaitMs);
      this.waiting.push(entry);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next.start();
    else this.running -= 1;
  }
}
