import { BeforeApplicationShutdown, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { sql } from 'drizzle-orm';
import type Redis from 'ioredis';
import type * as IoRedis from 'ioredis';
import { createHash, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { Db } from '../../database/database';
import { isDatabaseUnavailable } from '../errors/database-errors';
import { failureReason, Outages } from '../outages/outages';
import { optionalPackage } from '../runtime/optional-package';

/** What went stale: some keys of a topic (the analytics cache's months), or all of it. */
export type Invalidated = string[] | 'all';
export type InvalidationHandler = (invalidated: Invalidated) => void;

/** The one message on the wire: who sent it (a process never handles its own), the topic and what is stale. */
interface Message {
  origin: string;
  topic: string;
  keys: Invalidated;
}

/** How long a lost subscription waits before connecting again. */
const RECONNECT_MS = 1_000;

/**
 * Cache invalidation across replicas. A process that changes something cached drops its own entries at once and
 * publishes which ones; every other replica drops them when the message arrives (milliseconds later), so a change
 * made through one replica is seen by the others well within a second, not after a cache's lifetime.
 *
 * The transport is Redis pub/sub when `REDIS_URL` is set, else PostgreSQL LISTEN/NOTIFY on the server engine, and
 * nothing on the embedded engine (one process, nobody to tell). Messages are at-most-once: while a subscription
 * is down a replica may miss some, so when it comes back every subscriber drops everything, and the caches keep
 * their time limits as a last resort.
 */
export abstract class CacheInvalidation
  implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown
{
  abstract readonly transport: 'redis' | 'postgres' | 'none';
  protected readonly logger = new Logger('CacheInvalidation');

  /** A message that could not be sent: the transport's outage, or else a warning. */
  protected sendFailed(error: unknown, topic: string): void {
    this.logger.warn({ reason: failureReason(error), topic }, 'Could not publish a cache invalidation');
  }
  protected readonly origin = randomUUID();
  private readonly handlers = new Map<string, InvalidationHandler[]>();
  /** What waits to be published, by topic. */
  private readonly queued = new Map<string, Set<string> | 'all'>();
  private flushTimer?: NodeJS.Timeout;
  /**
   * At the dinner rush (~80 scans a second across a university, each invalidating its month) 20 ms still sent a
   * NOTIFY for every other scan; 100 ms sends at most ten a second, and other replicas still see a change well
   * within a second.
   */
  static readonly COALESCE_MS = 100;

  /** `handler` runs for every change of `topic` published by another process. */
  subscribe(topic: string, handler: InvalidationHandler): void {
    this.handlers.set(topic, [...(this.handlers.get(topic) ?? []), handler]);
  }

  /**
   * Tells the other replicas, within COALESCE_MS: what is published meanwhile travels in the same message, one per
   * topic (at the counter's dinner rush every scan invalidates its month; one NOTIFY per scan took a statement and
   * the notify queue's lock at every commit). Never throws: a failure is logged, and the caches' time limits still
   * apply.
   */
  publish(topic: string, keys: Invalidated): void {
    if (Array.isArray(keys) && !keys.length) return;
    const queued = this.queued.get(topic);
    if (keys === 'all' || queued === 'all') this.queued.set(topic, 'all');
    else if (queued) for (const key of keys) queued.add(key);
    else this.queued.set(topic, new Set(keys));
    if (!this.flushTimer) {
      this.flushTimer = setTimeout(() => void this.flush(), CacheInvalidation.COALESCE_MS);
      this.flushTimer.unref();
    }
  }

  /** Sends what is queued now (also before shutdown, while the database and Redis are still open). */
  async flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const batch = [...this.queued];
    this.queued.clear();
    await Promise.all(
      batch.map(([topic, keys]) => {
        const message: Message = { origin: this.origin, topic, keys: keys === 'all' ? 'all' : [...keys] };
        return this.send(JSON.stringify(message)).catch((error: unknown) => this.sendFailed(error, topic));
      }),
    );
  }

  async onModuleInit(): Promise<void> {}
  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }
  async onApplicationShutdown(): Promise<void> {}

  protected abstract send(payload: string): Promise<void>;

  /** A message from the wire: handled unless it is ours or unreadable. */
  protected receive(payload: string): void {
    let message: Partial<Message>;
    try {
      message = JSON.parse(payload) as Partial<Message>;
    } catch {
      return;
    }
    if (message.origin === this.origin || typeof message.topic !== 'string') return;
    const keys = message.keys === 'all' || !Array.isArray(message.keys) ? 'all' : message.keys.map(String);
    this.dispatch(message.topic, keys);
  }

  /** After a gap in the subscription: whatever was missed, drop everything. */
  protected missedSome(): void {
    for (const topic of this.handlers.keys()) this.dispatch(topic, 'all');
  }

  private dispatch(topic: string, keys: Invalidated): void {
    for (const handler of this.handlers.get(topic) ?? []) {
      try {
        handler(keys);
      } catch (error) {
        this.logger.error({ reason: (error as Error).message, topic }, 'Cache invalidation handler failed');
      }
    }
  }
}

/** The embedded engine is one process: nobody else to tell. */
export class LocalCacheInvalidation extends CacheInvalidation {
  readonly transport = 'none' as const;
  protected async send(): Promise<void> {}
}

/**
 * The channel is named after the database, so two deployments (or two test runs) sharing one Redis do not flush
 * each other's caches: replicas of one service share one database.
 */
export function redisChannel(databaseUrl: string | undefined): string {
  const name = databaseUrl ? new URL(databaseUrl).pathname.slice(1) || 'postgres' : 'embedded';
  return `mess:cache-invalidation:${createHash('sha256').update(name).digest('hex').slice(0, 16)}`;
}

export class RedisCacheInvalidation extends CacheInvalidation {
  readonly transport = 'redis' as const;
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private subscribedOnce = false;

  constructor(
    url: string,
    private readonly channel: string,
    private readonly outages = new Outages(),
  ) {
    super();
    const options = { maxRetriesPerRequest: 1, lazyConnect: true, retryStrategy: () => RECONNECT_MS };
    const { Redis } = optionalPackage<typeof IoRedis>('ioredis');
    this.publisher = new Redis(url, { ...options, enableOfflineQueue: false });
    this.subscriber = new Redis(url, options);
    for (const client of [this.publisher, this.subscriber]) {
      client.on('error', (error: Error) =>
        this.outages.down('Redis', failureReason(error), 'cache invalidation'),
      );
      client.on('ready', () => this.outages.up('Redis'));
    }
    this.subscriber.on('message', (_channel: string, payload: string) => this.receive(payload));
    // ioredis subscribes again by itself after a reconnect; what was published meanwhile is lost.
    this.subscriber.on('ready', () => {
      if (this.subscribedOnce) this.missedSome();
    });
  }

  override async onModuleInit(): Promise<void> {
    try {
      await Promise.all([this.publisher.connect(), this.subscriber.connect()]);
      await this.subscriber.subscribe(this.channel);
      this.subscribedOnce = true;
    } catch (error) {
      // Keeps trying in the background; meanwhile the caches' time limits apply.
      this.subscribedOnce = true;
      this.outages.down('Redis', failureReason(error), 'cache invalidation');
    }
  }

  protected async send(payload: string): Promise<void> {
    await this.publisher.publish(this.channel, payload);
  }

  protected override sendFailed(error: unknown): void {
    this.outages.down('Redis', failureReason(error), 'cache invalidation');
  }

  override async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.publisher.quit(), this.subscriber.quit()].map((p) => p.catch(() => undefined)));
  }
}

/** LISTEN on a connection of its own (outside the pool), NOTIFY through the pool. */
export class PostgresCacheInvalidation extends CacheInvalidation {
  static readonly CHANNEL = 'mess_cache_invalidation';
  readonly transport = 'postgres' as const;
  private listener?: Client;
  private stopped = false;
  private retry?: NodeJS.Timeout;

  constructor(
    private readonly url: string,
    private readonly db: Db,
    private readonly outages = new Outages(),
  ) {
    super();
  }

  override async onModuleInit(): Promise<void> {
    await this.listen(false);
  }

  private async listen(afterGap: boolean): Promise<void> {
    if (this.stopped) return;
    const client = new Client({ connectionString: this.url, application_name: 'mess-cache-invalidation' });
    const lost = () => {
      if (this.listener !== client) return;
      this.listener = undefined;
      client.end().catch(() => undefined);
      this.scheduleRetry();
    };
    client.on('error', (error: Error) => {
      this.outages.down('database', failureReason(error), 'cache invalidation');
      lost();
    });
    client.on('end', lost);
    client.on('notification', (message) => {
      if (message.payload) this.receive(message.payload);
    });
    try {
      this.listener = client;
      await client.connect();
      await client.query(`listen ${PostgresCacheInvalidation.CHANNEL}`);
      this.outages.up('database');
      if (afterGap) this.missedSome();
    } catch (error) {
      this.outages.down('database', failureReason(error), 'cache invalidation');
      lost();
    }
  }

  private scheduleRetry(): void {
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.listen(true);
    }, RECONNECT_MS);
    this.retry.unref();
  }

  protected async send(payload: string): Promise<void> {
    await this.db.execute(sql`select pg_notify(${PostgresCacheInvalidation.CHANNEL}, ${payload})`);
  }

  protected override sendFailed(error: unknown, topic: string): void {
    if (isDatabaseUnavailable(error))
      this.outages.down('database', failureReason(error), 'cache invalidation');
    else super.sendFailed(error, topic);
  }

  override async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
  }
}
