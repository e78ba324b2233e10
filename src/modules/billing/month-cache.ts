import { Injectable } from '@nestjs/common';
import { CacheInvalidation, type InvalidationHandler } from '../../common/cache/cache-invalidation';
import { CacheStats } from '../../common/stats/service-stats';
import { currentMessId } from '../../common/tenancy/mess-scope';

interface Entry {
  value: unknown;
  expiresAt: number;
  months: string[];
}

/** A miss of `MonthCache.lookup`: what `keep` needs to store the answer the caller computed. */
export interface MonthMiss {
  hit: false;
  key: string;
  months: string[];
  generation: number;
  at: number;
}

/** What `MonthCache.lookup` finds: the answer kept, or a miss. */
export type MonthLookup<T> = { hit: true; value: T } | MonthMiss;

/**
 * Answers of the bill and the analytics endpoints, kept until a write touches one of their months (the domain events
 * say which) or for TTL_MS at most. Invalidations are published to the other replicas (CacheInvalidation), which drop
 * the same months when the message arrives; TTL_MS only bounds staleness when a message was lost. Bounded in size.
 *
 * Each month has a generation, bumped by every invalidation of it (and all of them by `invalidateAll`): an answer
 * whose computation began before a write's invalidation is returned to its caller but not stored, so it cannot
 * outlive the write in the cache.
 *
 * Keys are per mess (the mess the code runs for): every mess has its own bill and figures of a month. Invalidations
 * name months only, so a write drops that month's answers of every mess: more than needed, never too little.
 */
@Injectable()
export class MonthCache {
  static readonly TTL_MS = 30_000;
  static readonly MAX_ENTRIES = 1_000;
  private readonly entries = new Map<string, Entry>();
  /** Only months that writes touched have one; it only grows, so a sum over months changes whenever one does. */
  private readonly generations = new Map<string, number>();
  private allGeneration = 0;

  constructor(
    private readonly stats: CacheStats,
    private readonly replicas: CacheInvalidation,
  ) {
    replicas.subscribe(MonthCache.TOPIC, (months) => {
      if (months === 'all') this.dropAll();
      else this.dropMonths(months);
      for (const listener of this.remoteListeners) listener(months);
    });
  }

  private readonly remoteListeners: InvalidationHandler[] = [];

  /** `listener` hears the invalidations that came from another replica (after their entries were dropped here). */
  onRemoteInvalidation(listener: InvalidationHandler): void {
    this.remoteListeners.push(listener);
  }

  static readonly TOPIC = 'analytics';

  /**
   * `months`: every `YYYY-MM` the answer depends on. `nested`: a lookup made while computing another cached answer;
   * only the outer lookup of a request counts as a hit or a miss.
   */
  async get<T>(
    key: string,
    months: string[],
    compute: () => Promise<T>,
    options: { nested?: boolean } = {},
  ): Promise<T> {
    const found = this.lookup<T>(key, months, options);
    if (found.hit) return found.value;
    return this.keep(found, await compute());
  }

  /**
   * `get` in two steps, for another module's answers (analytics): the answer kept, or a miss that the caller
   * computes itself and hands to `keep`, so this module never runs another's code. The month's generation is read
   * here, before the computation begins.
   */
  lookup<T>(key: string, months: string[], options: { nested?: boolean } = {}): MonthLookup<T> {
    key = `${currentMessId()} ${key}`;
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) {
      if (!options.nested) this.stats.record(true);
      return { hit: true, value: hit.value as T };
    }
    if (!options.nested) this.stats.record(false);
    return { hit: false, key, months, generation: this.generationOf(months), at: now };
  }

  /** After a miss of `lookup`: keeps the answer computed (unless a write touched its months meanwhile); returns it. */
  keep<T>(miss: MonthMiss, value: T): T {
    const { key, months, generation, at } = miss;
    if (this.generationOf(months) !== generation) return value; // a write came in meanwhile: do not keep it
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: at + MonthCache.TTL_MS, months });
    if (this.entries.size > MonthCache.MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }

  invalidate(months: Iterable<string>): void {
    const touched = [...new Set(months)];
    this.dropMonths(touched);
    this.replicas.publish(MonthCache.TOPIC, touched);
  }

  /** For changes every month's answers depend on (the approved membership). */
  invalidateAll(): void {
    this.dropAll();
    this.replicas.publish(MonthCache.TOPIC, 'all');
  }

  private dropMonths(months: string[]): void {
    const touched = new Set(months);
    if (!touched.size) return;
    for (const month of touched) this.generations.set(month, (this.generations.get(month) ?? 0) + 1);
    for (const [key, entry] of this.entries) {
      if (entry.months.some((m) => touched.has(m))) this.entries.delete(key);
    }
  }

  private dropAll(): void {
    this.allGeneration += 1;
    this.entries.clear();
  }

  clear(): void {
    this.entries.clear();
  }

  private generationOf(months: string[]): number {
    let sum = this.allGeneration;
    for (const month of months) sum += this.generations.get(month) ?? 0;
    return sum;
  }
}
