import { Injectable } from '@nestjs/common';

export interface PerformanceSnapshot {
  avgResponseTime: number;
  p95ResponseTime: number;
  p99ResponseTime: number;
  requestsPerSecond: number;
  errorRate: number;
}

/**
 * Response times and outcomes of the last minute, in a fixed-size ring (bounded memory whatever the load).
 * Times are milliseconds; the error rate is the share of 5xx answers.
 */
@Injectable()
export class RequestMetrics {
  private readonly at: Float64Array;
  private readonly ms: Float64Array;
  private readonly failed: Uint8Array;
  private next = 0;
  private filled = 0;
  private readonly startedAt = Date.now();

  constructor(
    private readonly capacity = 20_000,
    private readonly windowMs = 60_000,
  ) {
    this.at = new Float64Array(capacity);
    this.ms = new Float64Array(capacity);
    this.failed = new Uint8Array(capacity);
  }

  record(durationMs: number, statusCode: number, now = Date.now()): void {
    this.at[this.next] = now;
    this.ms[this.next] = durationMs;
    this.failed[this.next] = statusCode >= 500 ? 1 : 0;
    this.next = (this.next + 1) % this.capacity;
    this.filled = Math.min(this.filled + 1, this.capacity);
  }

  snapshot(now = Date.now()): PerformanceSnapshot {
    const since = now - this.windowMs;
    const times: number[] = [];
    let errors = 0;
    for (let i = 0; i < this.filled; i += 1) {
      if (this.at[i] >= since) {
        times.push(this.ms[i]);
        errors += this.failed[i];
      }
    }
    if (!times.length) {
      return {
        avgResponseTime: 0,
        p95ResponseTime: 0,
        p99ResponseTime: 0,
        requestsPerSecond: 0,
        errorRate: 0,
      };
    }
    times.sort((a, b) => a - b);
    const sum = times.reduce((a, b) => a + b, 0);
    const seconds = Math.max(1, Math.min(this.windowMs, now - this.startedAt) / 1000);
    return {
      avgResponseTime: round(sum / times.length),
      p95ResponseTime: round(percentile(times, 0.95)),
      p99ResponseTime: round(percentile(times, 0.99)),
      requestsPerSecond: round(times.length / seconds),
      errorRate: round(errors / times.length, 4),
    };
  }
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  const rank = Math.ceil(p * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

const round = (n: number, digits = 2) => Number(n.toFixed(digits));
