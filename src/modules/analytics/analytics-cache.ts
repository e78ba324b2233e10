import { Injectable } from '@nestjs/common';
import { CacheStats } from '../../common/stats/service-stats';

interface Entry {
  value: unknown;
  expiresAt: number;
  months: string[];
}

/**
 * Answers of the analytics endpoints, kept until a write touches one of their months (the domain events say which)
 * or for TTL_MS at most, so a change made through another replica shows within that time. Bounded in size.
 */
@Injectable()
export class AnalyticsCache {
  static readonly TTL_MS = 30_000;
  static readonly MAX_ENTRIES = 1_000;
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly stats: CacheStats) {}

  /** `months`: every `YYYY-MM` the answer depends on. */
  async get<T>(key: string, months: string[], compute: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) {
      this.stats.record(true);
      return hit.value as T;
    }
    this.stats.record(false);
    const value = await compute();
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: now + AnalyticsCache.TTL_MS, months });
    if (this.entries.size > AnalyticsCache.MAX_ENTRIES)
      this.entries.delete(this.entries.keys().next().value!);
    return value;
  }

  invalidate(months: Iterable<string>): void {
    const touched = new Set(months);
    if (!touched.size) return;
    for (const [key, entry] of this.entries) {
      if (entry.months.some((m) => touched.has(m))) this.entries.delete(key);
    }
  }

  clear(): void {
    this.entries.clear();
  }
}
