import { currentMessId, inMess } from '../../common/tenancy/mess-scope';
import { Outages } from '../../common/outages/outages';
import { retryWhileUnavailable } from '../../database/start-up-retry';
import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { sql } from 'drizzle-orm';
import { createHash } from 'node:crypto';
import { fromDrizzle, PgBoss, type JobWithMetadata } from 'pg-boss';
import { FAILED_JOBS_WINDOW_HOURS, JobQueueStats, JobStatusCounts } from '../../common/stats/service-stats';
import { Clock } from '../../common/time/clock';
import { AppConfig } from '../../config/app-config';
import { Database, DbOrTx } from '../../database/database';
import { JOB_QUEUE_SCHEMA, jobQueueGrants } from '../../database/job-queue-schema';
import { DeliveryService } from './delivery.service';
import { NotificationsRepository } from './notifications.repository';
import type { NotificationRow } from './notifications.schema';
import { pgliteQueueDatabase } from './pglite-queue-adapter';
import { retryDeadline } from './routing';
import { OutboxRelay } from '../outbox';

export const DELIVERY_QUEUE = 'notification-delivery';
/** pg-boss keeps its tables in their own schema, beside the service's. */
export const QUEUE_SCHEMA = JOB_QUEUE_SCHEMA;

/**
 * A delivery job names its notification and the mess that notification speaks for: the worker runs outside any
 * request, and delivers the job in that mess (its name in From and the subject, its configuration). Jobs enqueued
 * before jobs named their mess have no `messId`; the worker reads it from their row.
 */
interface DeliveryJob {
  notificationId: string;
  messId?: string;
}

/** A UUID named by `name`: the same job id from every replica. */
function jobIdOf(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A UUID named by the notification and the number of its status reads so far. */
function followUpId(notificationId: string, checks: number): string {
  return jobIdOf(`${notificationId}:status:${checks}`);
}

/**
 * Retries pg-boss needs so that its backoff (each wait at least `delay` × 2^n, at most `max` seconds) outlasts
 * `deadline` seconds: the deadline, not pg-boss's count, ends the retries.
 */
export function retriesToCover(deadline: number, delay: number, max: number): number {
  let waited = 0;
  let retries = 0;
  while (waited < deadline) {
    waited += Math.min(max, delay * 2 ** retries);
    retries += 1;
  }
  return retries + 1;
}

/** Rows looked at by one reconciliation pass. */
const RECONCILE_BATCH = 50;

/** Runs `work` over `items` with at most `limit` at a time; results in the items' order. */
async function mapBounded<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  });
  await Promise.all(lanes);
  return results;
}

/**
 * The durable delivery queue: one pg-boss job per notification row, on the service's own PostgreSQL (the server
 * through pg-boss's pool, or the embedded engine's single connection through an adapter). A job is enqueued in the
 * transaction that writes its row, retried with exponential backoff while failures are transient, and picked up
 * after a restart when it was waiting. Exactly one worker holds a job at a time (SKIP LOCKED).
 */
@Injectable()
export class NotificationQueue implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('NotificationQueue');
  private boss?: PgBoss;

  constructor(
    private readonly database: Database,
    private readonly config: AppConfig,
    private readonly stats: JobQueueStats,
    private readonly repository: NotificationsRepository,
    private readonly outages: Outages,
    private readonly delivery: DeliveryService,
    private readonly clock: Clock,
    private readonly relay: OutboxRelay,
  ) {}

  async onModuleInit(): Promise<void> {
    const settings = this.config.notifications.queue;
    // A switchover in the middle of the set-up ends its connections (57P01): the whole set-up runs again on a fresh
    // queue, each step of it idempotent, for up to DB_START_RETRY_SECONDS.
    const boss = await retryWhileUnavailable('Opening the job queue', () => this.openQueue(), {
      deadlineMs: this.config.db.startRetryMs,
      logger: this.logger,
    });
    this.boss = boss;
    this.stats.attach(() => this.statusCounts());

    if (settings.workerEnabled) {
      // One worker fetches batches and delivers each batch's jobs side by side (at most `concurrency` at a time);
      // while fetches come back full it fetches again at once (burstWhenBatchFull) instead of sleeping the polling
      // interval. Each job is settled on its own (perJobResults): one failure never fails its batch-mates.
      await boss.work(
        DELIVERY_QUEUE,
        {
          includeMetadata: true,
          batchSize: settings.batchSize,
          burstWhenBatchFull: true,
          perJobResults: true,
          pollingIntervalSeconds: settings.pollSeconds,
          localConcurrency: 1,
        },
        async (jobs: JobWithMetadata<DeliveryJob>[]) =>
          mapBounded(jobs, settings.concurrency, async (job) => {
            try {
              await this.process(job);
              return { id: job.id, status: 'completed' as const };
            } catch (error) {
              return { id: job.id, status: 'failed' as const, output: { message: (error as Error).message } };
            }
          }),
      );
      this.logger.log(
        `Delivery worker started (batches of ${settings.batchSize}, ${settings.concurrency} at a time, polling every ${settings.pollSeconds} s when idle)`,
      );
    }
  }

  /** A started queue with its delivery queue in place, loaded and granted; stopped again when a step fails. */
  private async openQueue(): Promise<PgBoss> {
    const settings = this.config.notifications.queue;
    const connection = this.database.connection();
    const common = { schema: QUEUE_SCHEMA, schedule: false, migrate: true } as const;
    let boss: PgBoss;
    // When another login owns the tables, it installed the queue's schema and granted its tables with the migrations
    // (database/job-queue-schema.ts): the queue runs as the service's login, which owns nothing, so it neither
    // migrates nor rebuilds indexes (DDL); adding and updating the queue's row is DML (decision 0012).
    const separateOwner = connection.kind === 'server' && connection.separateOwner;
    if (connection.kind === 'embedded') {
      boss = new PgBoss({ ...common, backend: 'pglite', db: pgliteQueueDatabase(connection.client) });
    } else {
      // pg-boss hands these options to its own pg.Pool. That pool gets the client-side deadline the service's pool
      // has (pg's query_timeout, which pg-boss's types do not name): a database that stops answering (a partition
      // keeps the socket open) fails the queue's query, and pg-boss retries on its next poll, instead of a worker
      // waiting on it for ever. Longer than the service's: queue maintenance may legitimately run long.
      const options: ConstructorParameters<typeof PgBoss>[0] & { query_timeout: number } = {
        ...common,
        ...(separateOwner ? { migrate: false, reindex: false } : {}),
        connectionString: connection.url,
        max: Math.max(2, Math.min(settings.concurrency, 10) + 1),
        application_name: 'mess-queue',
        query_timeout: Math.max(this.config.db.queryTimeoutMs, 30_000),
        connectionTimeoutMillis: Math.max(this.config.db.connectionTimeoutMs, 5_000),
      };
      boss = new PgBoss(options);
    }
    boss.on('error', (error: Error) => {
      this.outages.jobFailed(error, 'the job queue', this.logger, 'Job queue error');
    });
    try {
      return await this.setUpQueue(boss, settings, separateOwner);
    } catch (error) {
      await boss.stop({ graceful: false, close: true }).catch(() => undefined);
      throw error;
    }
  }

  private async setUpQueue(
    boss: PgBoss,
    settings: AppConfig['notifications']['queue'],
    separateOwner: boolean,
  ): Promise<PgBoss> {
    try {
      await boss.start();
    } catch (error) {
      // pg-boss's own check, when it may not migrate: "pg-boss is not installed", "… requires migrations".
      if (!separateOwner || !/pg-boss/.test((error as Error).message)) throw error;
      throw new Error(
        `The job queue's schema is not installed at this version (${(error as Error).message}): run npm run ` +
          'db:migrate with DATABASE_MIGRATION_URL set to the owner of the tables (docs/operations.md)',
      );
    }
    const queueOptions = {
      retryLimit: Math.max(
        settings.retryLimit,
        retriesToCover(
          settings.retryDeadlineHours * 3600,
          settings.retryDelaySeconds,
          settings.retryDelayMaxSeconds,
        ),
      ),
      retryDelay: settings.retryDelaySeconds,
      retryBackoff: true,
      retryDelayMax: settings.retryDelayMaxSeconds,
      expireInSeconds: settings.expireSeconds,
    };
    await boss.createQueue(DELIVERY_QUEUE, queueOptions);
    await boss.updateQueue(DELIVERY_QUEUE, queueOptions);
    // Loads the queue into pg-boss's cache now, outside any transaction: an enqueue inside the embedded engine's
    // transaction must never need a second statement on the connection that transaction holds.
    await boss.findJobs(DELIVERY_QUEUE, { key: '-' });
    // The service enqueues inside its own transactions, which run as its role (row-level security, migration
    // 0017): that role writes the queue's tables; the queue's owner (the connecting user) grants it, here where
    // the queue's schema is known to exist. A separate owner granted it with the migrations.
    if (!separateOwner) await boss.getDb().executeSql(jobQueueGrants());
    return boss;
  }

  async onModuleDestroy(): Promise<void> {
    // The outbox's listeners enqueue here: the relay stops, and its running events finish, first.
    await this.relay.stop();
    await this.boss?.stop({ graceful: true, timeout: 10_000, close: true });
    this.boss = undefined;
  }

  /** Adds one job per row, inside the transaction `tx` that inserted the rows. */
  async enqueue(rows: NotificationRow[], tx: DbOrTx): Promise<void> {
    if (!rows.length) return;
    await this.requireBoss().insert(
      DELIVERY_QUEUE,
      rows.map((row) => ({
        id: row.id,
        data: { notificationId: row.id, messId: row.messId } satisfies DeliveryJob,
        ...(row.dedupeKey ? { singletonKey: row.dedupeKey } : {}),
      })),
      { db: fromDrizzle(tx as unknown as Parameters<typeof fromDrizzle>[0], sql) },
    );
  }

  /**
   * Rows per status in every mess (one job per notification row; the queue is the deployment's, and the metrics and
   * health ask outside a mess or in another one), with the failures of the last FAILED_JOBS_WINDOW_HOURS.
   */
  async statusCounts(): Promise<JobStatusCounts> {
    const since = new Date(this.clock.now().getTime() - FAILED_JOBS_WINDOW_HOURS * 3_600_000);
    const { failedSince, ...byStatus } = await this.repository.countByStatus(since);
    return { ...byStatus, failedRecently: failedSince };
  }

  /**
   * Processes every job that is due now, one after another, and returns how many ran. For tests and operators:
   * deterministic, no polling. Jobs waiting for a retry are not due until their backoff ends (see makeRetriesDue).
   */
  async drain(): Promise<number> {
    const boss = this.requireBoss();
    let processed = 0;
    for (;;) {
      const jobs = await boss.fetch<DeliveryJob>(DELIVERY_QUEUE, { batchSize: 10, includeMetadata: true });
      if (!jobs.length) return processed;
      for (const job of jobs) {
        try {
          await this.process(job);
          await boss.complete(DELIVERY_QUEUE, job.id);
        } catch (error) {
          await boss.fail(DELIVERY_QUEUE, job.id, { message: (error as Error).message });
        }
        processed += 1;
      }
    }
  }

  /** Ends the backoff of every job waiting for a retry, so the next drain runs it. */
  async makeRetriesDue(): Promise<number> {
    const boss = this.requireBoss();
    const waiting = await boss.findJobs(DELIVERY_QUEUE, { queued: true });
    for (const job of waiting) {
      await boss.update(DELIVERY_QUEUE, undefined, { id: job.id, startAfter: new Date() });
    }
    return waiting.length;
  }

  /**
   * Looks for notifications still queued or retrying whose job is gone or ended (deleted, failed by pg-boss after an
   * unexpected error, expired past its retries), untouched for NOTIFY_JOB_EXPIRE_SECONDS: nothing would deliver them
   * and the queue counts would say pending for ever. Before the retry deadline each gets a new job (its id named by
   * the row's last change, so replicas add it once; delivery resumes from the recorded outcomes); after it, the row
   * fails. At most RECONCILE_BATCH rows a pass, oldest first, of the mess the code runs in. Run by the schedules'
   * minute tick, in each mess in turn.
   */
  async reconcile(now: Date): Promise<{ requeued: number; failed: number }> {
    const settings = this.config.notifications.queue;
    const rows = await this.repository.findWithoutLiveJob(
      { schema: QUEUE_SCHEMA, queue: DELIVERY_QUEUE },
      new Date(now.getTime() - settings.expireSeconds * 1000),
      RECONCILE_BATCH,
    );
    const late = rows.filter((row) => now >= retryDeadline(row.createdAt, settings.retryDeadlineHours));
    const requeue = rows.filter((row) => !late.includes(row));
    for (const row of late) {
      await this.repository.update(row.id, {
        status: 'failed',
        lastError: row.lastError ?? 'The delivery job was lost and the retry deadline has passed',
      });
    }
    if (requeue.length) {
      await this.requireBoss().insert(
        DELIVERY_QUEUE,
        requeue.map((row) => ({
          id: jobIdOf(`${row.id}:requeue:${row.updatedAt.getTime()}`),
          data: { notificationId: row.id, messId: row.messId } satisfies DeliveryJob,
        })),
      );
    }
    const result = { requeued: requeue.length, failed: late.length };
    if (rows.length) {
      this.logger.warn(
        { ...result, messId: currentMessId() },
        'Notifications without a delivery job: queued again or failed',
      );
    }
    return result;
  }

  /**
   * Runs one job in the mess of its notification (the job's `messId`, or its row's for a job from before jobs named
   * it); throws when the failure is transient and retries are left, so pg-boss retries it later. When WhatsApp
   * accepted the message and its status is not final, a follow-up job reads it again at the time asked; its id is
   * derived from the notification and the number of reads, so a job run twice adds it once.
   */
  private async process(job: JobWithMetadata<DeliveryJob>): Promise<void> {
    const id = job.data.notificationId;
    const messId = job.data.messId ?? (await this.repository.messOf(id));
    // No mess: the row is gone, and there is nothing to deliver.
    if (!messId) return;
    const outcome = await inMess(messId, () =>
      this.delivery.deliver(id, { retriesLeft: job.retryCount < job.retryLimit }),
    );
    if (outcome.kind === 'retry') throw new Error(outcome.error);
    if (outcome.kind === 'check') {
      await this.requireBoss().insert(DELIVERY_QUEUE, [
        {
          id: followUpId(id, outcome.checks),
          data: { notificationId: id, messId } satisfies DeliveryJob,
          startAfter: outcome.at,
        },
      ]);
    }
  }

  private requireBoss(): PgBoss {
    if (!this.boss) throw new Error('The notification queue is not running');
    return this.boss;
  }
}
