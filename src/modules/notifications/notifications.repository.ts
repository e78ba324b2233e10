import { Injectable } from '@nestjs/common';
import { and, asc, count, desc, eq, gt, inArray, like, lt, sql } from 'drizzle-orm';
import { Database, DbOrTx } from '../../database/database';
import { inTransaction } from '../../database/transactions';
import type { ChannelPreference, PreferenceSwitch } from './notification-types';
import { isAnyUuid } from '../../database/sql-arrays';
import {
  messagingUsage,
  NewNotificationRow,
  notificationPreferences,
  NotificationPreferencesRow,
  NotificationRow,
  notifications,
  NotificationStatus,
} from './notifications.schema';

/** The only code that queries the notifications module's tables. */
@Injectable()
export class NotificationsRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  // ---- a member's data (extension 2.3) ----

  /** A member's notifications in the statement's mess, in id order after `after`, `limit` + 1 (the export). */
  memberPage(userId: string, after: string | undefined, limit: number): Promise<NotificationRow[]> {
    return this.db
      .select()
      .from(notifications)
      .where(
        and(eq(notifications.userId, userId), after === undefined ? undefined : gt(notifications.id, after)),
      )
      .orderBy(asc(notifications.id))
      .limit(limit + 1);
  }

  /**
   * Erasure: the texts of the member's notifications in the statement's mess emptied (they address the member by
   * name), and any error text of a send (it may name the address); type, status and times stay.
   */
  async eraseTexts(tx: DbOrTx, userId: string): Promise<void> {
    await tx
      .update(notifications)
      .set({ title: '', content: '', lastError: null, outcomes: {}, updatedAt: new Date() })
      .where(eq(notifications.userId, userId));
  }

  /** Erasure: the member's channel and switches (deployment-wide) removed. */
  async erasePreferences(tx: DbOrTx, userId: string): Promise<void> {
    await tx.delete(notificationPreferences).where(eq(notificationPreferences.userId, userId));
  }

  /**
   * Runs `work` in one transaction (run again whole after a deadlock or a serialisation failure); the queue enqueues
   * inside it, so a row and its job exist together or not at all.
   */
  transaction<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
    return inTransaction(this.db, work);
  }

  /** Inserts the rows whose dedupe key is new; returns only those (a known key is skipped silently). */
  async insertNew(rows: NewNotificationRow[], tx: DbOrTx = this.db): Promise<NotificationRow[]> {
    if (!rows.length) return [];
    return tx.insert(notifications).values(rows).onConflictDoNothing().returning();
  }

  /**
   * The mess of notification `id`, read across messes (the reader role: the worker acts in no mess before it knows
   * the row's): for a delivery job enqueued before jobs named their mess. Undefined when the row is gone.
   */
  async messOf(id: string): Promise<string | undefined> {
    const [row] = await this.database.acrossMesses((tx) =>
      tx
        .select({ messId: notifications.messId })
        .from(notifications)
        .where(eq(notifications.id, id))
        .limit(1),
    );
    return row?.messId;
  }

  async findById(id: string): Promise<NotificationRow | undefined> {
    const [row] = await this.db.select().from(notifications).where(eq(notifications.id, id)).limit(1);
    return row;
  }

  /** The newest notification whose dedupe key starts with `keyPrefix`: its key and content. */
  async lastByKeyPrefix(keyPrefix: string): Promise<{ dedupeKey: string; content: string } | undefined> {
    const [row] = await this.db
      .select({ dedupeKey: notifications.dedupeKey, content: notifications.content })
      .from(notifications)
      .where(like(notifications.dedupeKey, `${keyPrefix.replace(/[\\%_]/g, '\\$&')}%`))
      .orderBy(desc(notifications.createdAt))
      .limit(1);
    return row?.dedupeKey ? { dedupeKey: row.dedupeKey, content: row.content } : undefined;
  }

  async update(id: string, values: Partial<NewNotificationRow>): Promise<NotificationRow | undefined> {
    const [row] = await this.db
      .update(notifications)
      .set({ ...values, updatedAt: new Date() })
      .where(eq(notifications.id, id))
      .returning();
    return row;
  }

  async listForUser(
    userId: string,
    limit: number,
    offset: number,
  ): Promise<{ rows: NotificationRow[]; total: number }> {
    const where = eq(notifications.userId, userId);
    const [rows, [{ total }]] = await Promise.all([
      this.db
        .select()
        .from(notifications)
        .where(where)
        .orderBy(desc(notifications.createdAt), desc(notifications.id))
        .limit(limit)
        .offset(offset),
      this.db.select({ total: count() }).from(notifications).where(where),
    ]);
    return { rows, total };
  }

  /**
   * Rows of the mess the code runs in (row-level security) still to be delivered (queued or retrying), untouched since `updatedBefore`,
   * for which the delivery queue (pg-boss's job table `schema`.job, queue `queue`) holds no live job: nothing would
   * ever run them again. Oldest first, at most `limit`.
   */
  findWithoutLiveJob(
    jobs: { schema: string; queue: string },
    updatedBefore: Date,
    limit: number,
  ): Promise<Pick<NotificationRow, 'id' | 'messId' | 'createdAt' | 'updatedAt' | 'lastError'>[]> {
    return this.db
      .select({
        id: notifications.id,
        messId: notifications.messId,
        createdAt: notifications.createdAt,
        updatedAt: notifications.updatedAt,
        lastError: notifications.lastError,
      })
      .from(notifications)
      .where(
        and(
          inArray(notifications.status, ['queued', 'retrying']),
          lt(notifications.updatedAt, updatedBefore),
          sql`not exists (select 1 from ${sql.identifier(jobs.schema)}.job j where j.name = ${jobs.queue} and j.data->>'notificationId' = ${notifications.id}::text and j.state < 'completed')`,
        ),
      )
      .orderBy(asc(notifications.updatedAt))
      .limit(limit);
  }

  /**
   * Rows per status in every mess (the deployment's queue, for the metrics and health: read across messes, whatever
   * mess the caller acts in, or none), and how many of the failed ones failed (were last changed) at or after
   * `failedSince`.
   */
  async countByStatus(
    failedSince: Date,
  ): Promise<Record<NotificationStatus, number> & { failedSince: number }> {
    const rows = await this.database.acrossMesses((tx) =>
      tx
        .select({
          status: notifications.status,
          n: count(),
          since: sql<number>`count(*) filter (where ${notifications.updatedAt} >= ${failedSince.toISOString()})::int`,
        })
        .from(notifications)
        .groupBy(notifications.status),
    );
    const counts = { queued: 0, retrying: 0, sent: 0, failed: 0, failedSince: 0 };
    for (const row of rows) {
      counts[row.status] = row.n;
      if (row.status === 'failed') counts.failedSince = Number(row.since);
    }
    return counts;
  }

  // ---- preferences ----

  async findPreferences(userId: string): Promise<NotificationPreferencesRow | undefined> {
    const [row] = await this.db
      .select()
      .from(notificationPreferences)
      .where(eq(notificationPreferences.userId, userId))
      .limit(1);
    return row;
  }

  async findPreferencesFor(userIds: string[]): Promise<Map<string, NotificationPreferencesRow>> {
    if (!userIds.length) return new Map();
    const rows = await this.db
      .select()
      .from(notificationPreferences)
      .where(isAnyUuid(notificationPreferences.userId, userIds));
    return new Map(rows.map((row) => [row.userId, row]));
  }

  async saveChannel(userId: string, channel: ChannelPreference): Promise<NotificationPreferencesRow> {
    const [row] = await this.db
      .insert(notificationPreferences)
      .values({ userId, channel })
      .onConflictDoUpdate({ target: notificationPreferences.userId, set: { channel, updatedAt: new Date() } })
      .returning();
    return row;
  }

  /** Merges the given switches into the stored ones. */
  async saveSwitches(
    userId: string,
    switches: Partial<Record<PreferenceSwitch, boolean>>,
  ): Promise<NotificationPreferencesRow> {
    const [row] = await this.db
      .insert(notificationPreferences)
      .values({ userId, switches })
      .onConflictDoUpdate({
        target: notificationPreferences.userId,
        set: {
          switches: sql`${notificationPreferences.switches} || excluded.switches`,
          updatedAt: new Date(),
        },
      })
      .returning();
    return row;
  }

  // ---- messaging allowance ----

  /** Takes one message from the month's allowance; false when it is used up. Atomic across replicas. */
  async reserveMessage(month: string, limit: number): Promise<boolean> {
    if (limit <= 0) return false;
    const rows = await this.db
      .insert(messagingUsage)
      .values({ month, sent: 1 })
      .onConflictDoUpdate({
        target: messagingUsage.month,
        set: { sent: sql`${messagingUsage.sent} + 1` },
        setWhere: lt(messagingUsage.sent, limit),
      })
      .returning({ sent: messagingUsage.sent });
    return rows.length === 1;
  }

  /** Gives a reserved message back after the provider did not take it. */
  async releaseMessage(month: string): Promise<void> {
    await this.db
      .update(messagingUsage)
      .set({ sent: sql`greatest(${messagingUsage.sent} - 1, 0)` })
      .where(eq(messagingUsage.month, month));
  }
}
