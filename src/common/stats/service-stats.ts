import { Injectable } from '@nestjs/common';

/** Counters the health summary reports; parts that do not exist yet report zeros. */
@Injectable()
export class RateLimitStats {
  totalRequests = 0;
  blockedRequests = 0;
}

@Injectable()
export class CacheStats {
  hits = 0;
  misses = 0;

  record(hit: boolean): void {
    if (hit) this.hits += 1;
    else this.misses += 1;
  }

  /** The contract writes the hit rate as a string, e.g. "87.50%". */
  hitRate(): string {
    const total = this.hits + this.misses;
    return `${total === 0 ? '0.00' : ((this.hits / total) * 100).toFixed(2)}%`;
  }
}

export interface JobCounts {
  pending: number;
  failed: number;
  processed: number;
  /** Of `failed`, those that failed within the last FAILED_JOBS_WINDOW_HOURS: what the health summary judges. */
  failedRecently: number;
}

/** How far back a failed job still makes the health summary `degraded`. */
export const FAILED_JOBS_WINDOW_HOURS = 24;

/** One job per notification row, by the row's status: waiting, waiting for a retry, given up, delivered. */
export interface JobStatusCounts {
  queued: number;
  retrying: number;
  failed: number;
  sent: number;
  /** Of `failed`, those that failed within the last FAILED_JOBS_WINDOW_HOURS. */
  failedRecently: number;
}

/** Implemented by the job queue once one exists; until then there is nothing pending, failed or processed. */
@Injectable()
export class JobQueueStats {
  private source?: () => Promise<JobStatusCounts>;

  attach(source: () => Promise<JobStatusCounts>): void {
    this.source = source;
  }

  get attached(): boolean {
    return this.source !== undefined;
  }

  async statusCounts(): Promise<JobStatusCounts> {
    return this.source ? this.source() : { queued: 0, retrying: 0, failed: 0, sent: 0, failedRecently: 0 };
  }

  /** The contract's summary: pending (queued or retrying), failed, processed (sent). */
  async counts(): Promise<JobCounts> {
    const counts = await this.statusCounts();
    return {
      pending: counts.queued + counts.retrying,
      failed: counts.failed,
      processed: counts.sent,
      failedRecently: counts.failedRecently,
    };
  }
}
