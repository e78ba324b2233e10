import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { sql } from 'drizzle-orm';
import { DomainEventBus, type OutboxStore } from '../../common/events/domain-event-bus';
import { Outages } from '../../common/outages/outages';
import { inEveryMess } from '../../common/tenancy/every-mess';
import { inMess, MESS_SETTING } from '../../common/tenancy/mess-scope';
import { Database, type DbOrTx } from '../../database/database';
import { rowsOf } from '../../database/sql-rows';
import { MessDirectory } from '../messes';
import { outboxEvents } from './outbox.schema';

/** Rows claimed by one statement: handed on one by one, in the order written. */
const CLAIM_BATCH = 20;
/** How long a claim keeps other relays off a row; past it (the relay died), any relay takes the row again. */
export const OUTBOX_CLAIM_SECONDS = 30;
/** The longest wait before a row whose listener failed is handed on again (the wait doubles from 5 s). */
const MAX_BACKOFF_SECONDS = 600;

interface ClaimedRow {
  id: string | number;
  name: string;
  payload: unknown;
  attempts: number;
}

/**
 * Hands the outbox's durable events to their listeners (decision 0005), in each mess, at least once:
 *
 * - woken in this process right after a transaction that wrote one has committed (`DomainEventBus.onCommitted`);
 * - by a sweep of every mess at start-up and every 30 seconds on every replica, which takes what a wake missed: a
 *   row of a process that died before handing it on, or one whose listener failed.
 *
 * A row is claimed (`FOR UPDATE SKIP LOCKED`, then `claimed_until` set for OUTBOX_CLAIM_SECONDS) so two replicas
 * do not hand on the same row at once; the claim is short, and the listeners run outside it (they open their own
 * transactions; the embedded engine has one session). Once every listener has resolved the row is done; a failure
 * keeps it pending with a growing wait. A crash between the listeners and `done` hands it on again: the listeners
 * are idempotent through their dedupe keys.
 */
@Injectable()
export class OutboxRelay implements OutboxStore, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Outbox');
  private readonly running = new Set<Promise<void>>();
  /** The messes being drained; `again`: woken meanwhile, drain once more before stopping. */
  private readonly draining = new Map<string, { again: boolean }>();
  private unsubscribe?: () => void;
  private stopped = false;

  constructor(
    private readonly database: Database,
    private readonly bus: DomainEventBus,
    private readonly directory: MessDirectory,
    private readonly outages: Outages,
  ) {
    bus.useOutbox(this);
  }

  /**
   * `DomainEventBus.publishWithin`'s write: the row in the event's mess. The transaction may act in another mess at
   * this point (a move acts in the mess a member left, the close of a window in each of its messes in turn): it
   * is given back the mess it was acting in.
   */
  async write(tx: DbOrTx, event: { messId: string; name: string; payload: object }): Promise<void> {
    const [{ previous }] = rowsOf<{ previous: string | null }>(
      await tx.execute(sql`
        with p as materialized (select current_setting(${MESS_SETTING}, true) as previous)
        select previous, set_config(${MESS_SETTING}, ${event.messId}, true) from p`),
    );
    await tx.insert(outboxEvents).values(event);
    if (previous !== event.messId) {
      await tx.execute(sql`select set_config(${MESS_SETTING}, ${previous ?? ''}, true)`);
    }
  }

  onApplicationBootstrap(): void {
    this.unsubscribe = this.bus.onCommitted((messId) => this.wake(messId));
    this.track(this.sweep(true));
  }

  onModuleDestroy(): Promise<void> {
    return this.stop();
  }

  /**
   * Takes no more events and resolves when those being handed on are done. Also called by what the listeners write
   * through (the notification queue) before it closes: a listener running at shutdown still finds it open.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    await this.idle();
  }

  @Cron(CronExpression.EVERY_30_SECONDS, { name: 'outbox' })
  tick(): Promise<void> {
    const sweep = this.sweep(false);
    this.track(sweep);
    return sweep.catch(() => undefined);
  }

  /** Drains the events of `messId` now (coalesced with a drain already running there). */
  wake(messId: string): void {
    if (this.stopped) return;
    const state = this.draining.get(messId);
    if (state) {
      state.again = true;
      return;
    }
    const mine = { again: false };
    this.draining.set(messId, mine);
    this.track(
      (async () => {
        try {
          do {
            mine.again = false;
            await inMess(messId, () => this.drain());
          } while (mine.again && !this.stopped);
        } finally {
          this.draining.delete(messId);
        }
      })(),
    );
  }

  /**
   * Every mess: removes the rows done more than a week ago and drains the rest. At start-up on the embedded engine
   * (one process per data directory) the claims left by a process that died are released first. A mess whose
   * clean-up failed is reported and left to the next sweep; the others go on.
   */
  async sweep(startUp: boolean): Promise<void> {
    await inEveryMess(
      (await this.directory.labels()).keys(),
      'the outbox relay',
      async (messId) => {
        if (startUp && this.database.kind === 'embedded') {
          await this.database.db.execute(
            sql`update outbox_events set claimed_until = null where done_at is null and claimed_until is not null`,
          );
        }
        await this.database.db.execute(
          sql`delete from outbox_events where done_at < now() - interval '7 days'`,
        );
        this.wake(messId);
      },
      { outages: this.outages, logger: this.logger, message: 'Outbox sweep failed in a mess' },
    );
  }

  /** Resolves when every drain started so far (and any it started) has finished (tests wait on it). */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running]);
  }

  /** The pending events of the running code's mess, claimed a batch at a time, until none is left to take. */
  private async drain(): Promise<void> {
    while (!this.stopped) {
      const claimed = rowsOf<ClaimedRow>(
        await this.database.db.execute(sql`
          update outbox_events
             set claimed_until = now() + make_interval(secs => ${OUTBOX_CLAIM_SECONDS}), attempts = attempts + 1
           where id in (
             select id from outbox_events
              where done_at is null and (claimed_until is null or claimed_until < now())
              order by id
              limit ${CLAIM_BATCH}
                for update skip locked)
          returning id, name, payload, attempts`),
      ).sort((a, b) => Number(a.id) - Number(b.id));
      if (!claimed.length) return;
      for (const row of claimed) await this.handOn(row);
    }
  }

  private async handOn(row: ClaimedRow): Promise<void> {
    try {
      await this.bus.deliver(row.name, row.payload);
    } catch (error) {
      const wait = Math.min(MAX_BACKOFF_SECONDS, 5 * 2 ** Math.min(row.attempts - 1, 10));
      this.outages.jobFailed(error, `the ${row.name} event`, this.logger, 'Outbox event listener failed', {
        event: row.name,
        id: String(row.id),
        attempts: row.attempts,
      });
      const reason = error instanceof Error ? error.message : String(error);
      await this.database.db.execute(sql`
        update outbox_events
           set claimed_until = now() + make_interval(secs => ${wait}), last_error = ${reason.slice(0, 500)}
         where id = ${row.id}`);
      return;
    }
    await this.database.db.execute(
      sql`update outbox_events set done_at = now(), claimed_until = null, last_error = null where id = ${row.id}`,
    );
  }

  private track(work: Promise<void>): void {
    const promise: Promise<void> = work
      .catch((error: unknown) => {
        this.outages.jobFailed(error, 'the outbox relay', this.logger, 'Outbox relay failed');
      })
      .finally(() => this.running.delete(promise));
    this.running.add(promise);
  }
}
