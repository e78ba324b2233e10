import { CacheInvalidation } from '../../src/common/cache/cache-invalidation';

/**
 * One ordered feed in memory, as Redis pub/sub or PostgreSQL NOTIFY is: every message published reaches every
 * process on it (the sender too), in one order, a moment later. A process can be cut off (its subscription dead:
 * it hears nothing, what it sends is lost) to see what the lease does.
 */
export class InvalidationFeed {
  private readonly members: FeedProcess[] = [];
  readonly published: Record<string, unknown>[] = [];
  private queue: Promise<void> = Promise.resolve();

  join(): FeedProcess {
    const member = new FeedProcess(this);
    this.members.push(member);
    return member;
  }

  publish(from: FeedProcess, payload: string): Promise<void> {
    if (from.cutOff) return Promise.reject(new Error('connection lost'));
    this.published.push(JSON.parse(payload) as Record<string, unknown>);
    // Delivered in publish order, each after a turn of the event loop.
    this.queue = this.queue.then(
      () =>
        new Promise<void>((resolve) =>
          setTimeout(() => {
            for (const member of this.members) if (!member.cutOff) member.hear(payload);
            resolve();
          }, 1),
        ),
    );
    return Promise.resolve();
  }
}

export class FeedProcess extends CacheInvalidation {
  readonly transport = 'redis' as const;
  cutOff = false;

  constructor(private readonly feed: InvalidationFeed) {
    super();
  }

  start(): void {
    this.startBeating();
  }

  async stop(): Promise<void> {
    await this.beforeApplicationShutdown();
  }

  hear(payload: string): void {
    this.receive(payload);
  }

  protected send(payload: string): Promise<void> {
    return this.feed.publish(this, payload);
  }
}
