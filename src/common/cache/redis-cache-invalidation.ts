import type Redis from 'ioredis';
import type * as IoRedis from 'ioredis';
import { createHash } from 'node:crypto';
import { failureReason, Outages } from '../outages/outages';
import { optionalPackage } from '../runtime/optional-package';
import { CacheInvalidation, RECONNECT_MS } from './cache-invalidation';

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
      // Keeps trying in the background; meanwhile the caches' time limits apply (and no lease is held).
      this.subscribedOnce = true;
      this.outages.down('Redis', failureReason(error), 'cache invalidation');
    }
    this.startBeating();
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
