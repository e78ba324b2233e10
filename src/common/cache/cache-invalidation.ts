import { BeforeApplicationShutdown, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { failureReason } from '../outages/outages';

/** What went stale: some keys of a topic (the analytics cache's months), or all of it. */
export type Invalidated = string[] | 'all';
export type InvalidationHandler = (invalidated: Invalidated) => void;

/**
 * The one message on the wire, from `origin` (a process never handles its own): what is stale in a topic; or a
 * heartbeat (`beat`); or an acknowledgement (`ack`, to `to`) of a confirmed invalidation. A confirmed invalidation
 * (`confirm`: its id) may travel in several parts, `last` marking the final one.
 */
interface Message {
  origin: string;
  topic?: string;
  keys?: Invalidated;
  confirm?: string;
  last?: boolean;
  beat?: number;
  ack?: string;
  to?: string;
}

/** How long a lost subscription waits before connecting again. */
export const RECONNECT_MS = 1_000;
/**
 * The largest message sent (PostgreSQL refuses a NOTIFY payload of 8,000 bytes or more: a batch move of 205
 * members once failed so): longer key lists travel in several messages.
 */
export const MAX_MESSAGE_BYTES = 7_000;

/** A confirmed invalidation this process is waiting on. */
interface Confirmation {
  /** The peers that must acknowledge, known once this process has heard its own last part. */
  peers?: Set<string>;
  acked: Set<string>;
  finish: () => void;
}

/**
 * Cache invalidation across replicas, over one ordered feed (Redis pub/sub on one server, or PostgreSQL NOTIFY:
 * both deliver every message to every listener in one order). A process that changes something cached drops its
 * own entries at once and publishes which ones; every other replica drops them when the message arrives.
 *
 * Two kinds of publishing:
 * - `publish` (coalesced for COALESCE_MS, at most once): for caches whose staleness is bounded in time (analytics'
 *   months, a mess's configuration), seen by the others well within a second;
 * - `publishConfirmed`, for what must hold "from that moment" (who a token names: a move, a role, a logout): it
 *   resolves once every live replica has acknowledged that it dropped the keys, or once LEASE_MS has passed since
 *   it was sent, whichever is first. The writer answers after it (`requestContext.answerAfter`).
 *
 * Why LEASE_MS is enough without knowing the replicas: every process publishes a heartbeat each BEAT_MS and trusts
 * its confirmed caches (`trusted()`) only within LEASE_MS of sending a heartbeat it has heard back. Hearing its own
 * heartbeat proves it has handled everything published before it (one ordered feed). So a replica that did not
 * acknowledge an invalidation sent at time w either heard it, or last heard a heartbeat sent before w and stops
 * trusting its cache before w + LEASE_MS: a lost message, a dead subscription, a paused process or a stopped feed
 * all end as "read from the database", never as an answer from the old state. The acknowledgements only make the
 * usual wait short: the writer waits for every peer it heard within 2 × LEASE_MS before it heard its own message
 * (a replica trusting its cache must have sent a heartbeat the writer heard by then).
 *
 * On the embedded engine (one process, nobody to tell) everything is trusted and nothing waits.
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
  /** How often each process sends its heartbeat. */
  static readonly BEAT_MS = 250;
  /** How long after sending a heartbeat it has heard back a process trusts its confirmed caches. */
  static readonly LEASE_MS = 1_500;

  private beatTimer?: NodeJS.Timeout;
  private beatSeq = 0;
  /** When each heartbeat not yet heard back was sent (performance.now()). */
  private readonly beatsSent = new Map<number, number>();
  /** When the newest heartbeat heard back was sent; -Infinity until one is. */
  private confirmedAt = -Infinity;
  private lapsed = false;
  /** The other processes on the feed, by when this one last heard any message of theirs (performance.now()). */
  private readonly peers = new Map<string, number>();
  private readonly confirmations = new Map<string, Confirmation>();
  private closing = false;

  /** `handler` runs for every change of `topic` published by another process. */
  subscribe(topic: string, handler: InvalidationHandler): void {
    this.handlers.set(topic, [...(this.handlers.get(topic) ?? []), handler]);
  }

  /**
   * Whether a cache whose invalidations are confirmed (`publishConfirmed`) may answer now: always on the embedded
   * engine; elsewhere while this process has heard, within LEASE_MS, a heartbeat of its own (so it has handled
   * every invalidation sent before it). When it may not, the cache reads the database.
   */
  trusted(): boolean {
    if (this.transport === 'none') return true;
    return performance.now() - this.confirmedAt < CacheInvalidation.LEASE_MS;
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

  /**
   * Sends at once and resolves when every live replica has dropped `keys` (see the class): at once on the embedded
   * engine, in a few milliseconds usually, after LEASE_MS at most (a replica that went silent). Never rejects.
   */
  publishConfirmed(topic: string, keys: string[]): Promise<void> {
    if (this.transport === 'none' || !keys.length || this.closing) return Promise.resolve();
    const id = randomUUID();
    return new Promise<void>((resolve) => {
      const deadline = setTimeout(() => finish(), CacheInvalidation.LEASE_MS);
      const finish = () => {
        clearTimeout(deadline);
        this.confirmations.delete(id);
        resolve();
      };
      this.confirmations.set(id, { acked: new Set(), finish });
      void (async () => {
        const parts = messages({ origin: this.origin, topic, confirm: id }, keys);
        try {
          // One after the other: the feed then carries them in this order, the last part last.
          for (const [n, part] of parts.entries())
            await this.send(JSON.stringify(n === parts.length - 1 ? { ...part, last: true } : part));
        } catch (error) {
          // The deadline stands: every replica either heard the parts sent or stops trusting its cache by then.
          this.sendFailed(error, topic);
        }
      })();
    });
  }

  /** Sends what is queued now (also before shutdown, while the database and Redis are still open). */
  async flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const batch = [...this.queued];
    this.queued.clear();
    await Promise.all(
      batch.map(async ([topic, keys]) => {
        try {
          for (const message of messages({ origin: this.origin, topic }, keys === 'all' ? 'all' : [...keys]))
            await this.send(JSON.stringify(message));
        } catch (error) {
          this.sendFailed(error, topic);
        }
      }),
    );
  }

  async onModuleInit(): Promise<void> {}
  async beforeApplicationShutdown(): Promise<void> {
    this.stopBeating();
    await this.flush();
  }
  async onApplicationShutdown(): Promise<void> {}

  protected abstract send(payload: string): Promise<void>;
  /** A heartbeat or an acknowledgement: small, and late only at the lease's cost. */
  protected sendBeat(payload: string): Promise<void> {
    return this.send(payload);
  }

  /** Starts the heartbeat, once the subscription is made (or being retried). */
  protected startBeating(): void {
    if (this.beatTimer || this.transport === 'none') return;
    this.beatTimer = setInterval(() => this.beat(), CacheInvalidation.BEAT_MS);
    this.beatTimer.unref();
    this.beat();
  }

  protected stopBeating(): void {
    this.closing = true;
    clearInterval(this.beatTimer);
    this.beatTimer = undefined;
    for (const { finish } of [...this.confirmations.values()]) finish();
  }

  private beat(): void {
    const trusted = this.trusted();
    // A lapse is said once, and its end: meanwhile the caches that must agree read the database. At the info level:
    // a lapse follows the feed's transport going away, which the outage's own warning already reports (one account
    // of each outage); the lines tell what the replica does meanwhile.
    if (!trusted && this.confirmedAt > -Infinity && !this.lapsed) {
      this.lapsed = true;
      this.logger.log(
        { lastHeardMs: Math.round(performance.now() - this.confirmedAt) },
        'The invalidation feed went quiet: caches that must agree read the database until it is heard again',
      );
    } else if (trusted && this.lapsed) {
      this.lapsed = false;
      this.logger.log('The invalidation feed is heard again: caches answer again');
    }
    const seq = (this.beatSeq += 1);
    this.beatsSent.set(seq, performance.now());
    // Heartbeats not heard back within a lease never will be of use.
    for (const [old, at] of this.beatsSent)
      if (performance.now() - at > CacheInvalidation.LEASE_MS * 2) this.beatsSent.delete(old);
    // A failure is the transport's outage, reported by its connection; the lease lapses by itself.
    this.sendBeat(JSON.stringify({ origin: this.origin, beat: seq } satisfies Message)).catch(
      () => undefined,
    );
  }

  /** A message from the wire: handled unless it is ours or unreadable. */
  protected receive(payload: string): void {
    let message: Partial<Message>;
    try {
      message = JSON.parse(payload) as Partial<Message>;
    } catch {
      return;
    }
    if (typeof message.origin !== 'string') return;
    if (message.origin === this.origin) return this.heardOwn(message);
    this.peers.set(message.origin, performance.now());
    if (typeof message.ack === 'string') {
      if (message.to === this.origin) this.acknowledged(message.ack, message.origin);
      return;
    }
    if (typeof message.topic !== 'string') return;
    const keys = message.keys === 'all' || !Array.isArray(message.keys) ? 'all' : message.keys.map(String);
    this.dispatch(message.topic, keys);
    if (typeof message.confirm === 'string' && message.last) {
      const ack: Message = { origin: this.origin, ack: message.confirm, to: message.origin };
      this.sendBeat(JSON.stringify(ack)).catch((error: unknown) => this.sendFailed(error, message.topic!));
    }
  }

  private heardOwn(message: Partial<Message>): void {
    if (typeof message.beat === 'number') {
      const sentAt = this.beatsSent.get(message.beat);
      if (sentAt !== undefined) {
        this.confirmedAt = Math.max(this.confirmedAt, sentAt);
        for (const seq of this.beatsSent.keys()) if (seq <= message.beat) this.beatsSent.delete(seq);
      }
      return;
    }
    if (typeof message.confirm !== 'string' || !message.last) return;
    const waiting = this.confirmations.get(message.confirm);
    if (!waiting) return;
    // Every peer that could still trust its cache sent a heartbeat heard before this (see the class).
    const now = performance.now();
    waiting.peers = new Set(
      [...this.peers].filter(([, at]) => now - at < 2 * CacheInvalidation.LEASE_MS).map(([peer]) => peer),
    );
    this.settleIfAcknowledged(waiting);
  }

  private acknowledged(id: string, peer: string): void {
    const waiting = this.confirmations.get(id);
    if (!waiting) return;
    waiting.acked.add(peer);
    this.settleIfAcknowledged(waiting);
  }

  private settleIfAcknowledged(waiting: Confirmation): void {
    if (waiting.peers && [...waiting.peers].every((peer) => waiting.acked.has(peer))) waiting.finish();
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

/** `keys` in as many messages (each `head` with a part of them) as keep each under MAX_MESSAGE_BYTES. */
export function messages(head: Message, keys: Invalidated): Message[] {
  if (keys === 'all') return [{ ...head, keys }];
  const base = Buffer.byteLength(JSON.stringify({ ...head, keys: [], last: true }));
  const parts: Message[] = [];
  let part: string[] = [];
  let size = base;
  for (const key of keys) {
    const bytes = Buffer.byteLength(JSON.stringify(key)) + 1;
    if (part.length && size + bytes > MAX_MESSAGE_BYTES) {
      parts.push({ ...head, keys: part });
      part = [];
      size = base;
    }
    part.push(key);
    size += bytes;
  }
  parts.push({ ...head, keys: part });
  return parts;
}
