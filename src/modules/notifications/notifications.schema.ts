import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { users } from '../users/users.schema';
import type { Channel, ChannelPreference, NotificationType, PreferenceSwitch } from './notification-types';
import { messIdColumn, sealedByMess } from '../messes/messes.schema';

export const NOTIFICATION_STATUSES = ['queued', 'retrying', 'sent', 'failed'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

/**
 * The outcome of one channel for one notification: final (`ok` true or false), or, for WhatsApp, `accepted`: the
 * provider took the message (`at`) and its final status is still to be read (`checks` reads so far), or `sending`:
 * a send started at `at` whose answer never came (a timeout), so the provider may have taken it. A failure that
 * will be retried is not recorded here.
 */
export type ChannelOutcome =
  | { ok: true; messageId?: string; at: string }
  | { ok: false; error: string; code?: string; at: string }
  | { ok: 'accepted'; messageId: string; at: string; checks: number }
  | { ok: 'sending'; at: string };

export type AcceptedOutcome = Extract<ChannelOutcome, { ok: 'accepted' }>;

/**
 * One row per notification, the durable record the delivery job works from. `channels` lists the channels tried
 * in order; `outcomes` keeps each one's final result so a retried job resumes where it stopped and never sends
 * through a channel twice.
 */
export const notifications = pgTable(
  'notifications',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The mess the notification speaks for (its meal times, bill, account). */
    messId: messIdColumn(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    type: text('type').$type<NotificationType>().notNull(),
    title: text('title').notNull(),
    content: text('content').notNull(),
    /** The channels to use in order (the second only as fallback), decided at the first attempt. */
    route: jsonb('route').$type<Channel[]>(),
    channels: jsonb('channels').$type<Channel[]>().notNull().default([]),
    outcomes: jsonb('outcomes').$type<Partial<Record<Channel, ChannelOutcome>>>().notNull().default({}),
    status: text('status').$type<NotificationStatus>().notNull().default('queued'),
    deliveredVia: text('delivered_via').$type<Channel>(),
    fallbackUsed: boolean('fallback_used').notNull().default(false),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    providerMessageId: text('provider_message_id'),
    /** (type, period, user): the same reminder or alert is never queued twice, by any replica. */
    dedupeKey: text('dedupe_key'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
  },
  (t) => [
    ...sealedByMess('notifications'),
    uniqueIndex('notifications_mess_dedupe_key_unique').on(t.messId, t.dedupeKey),
    index('notifications_user_created_idx').on(t.userId, t.createdAt),
    index('notifications_status_idx').on(t.status),
    check(
      'notifications_type_check',
      sql`${t.type} in ('MEAL_REMINDER', 'PAYMENT_DUE', 'COST_SUMMARY', 'DISCREPANCY_ALERT', 'MEAL_UPDATE', 'EXPENSE_ADDED', 'BUDGET_EXCEEDED', 'ATTENDANCE_CONFIRMATION', 'PAYMENT_RECEIVED', 'LEAVE_DECIDED', 'PASSWORD_RESET', 'MESS_ALLOCATED')`,
    ),
    check('notifications_status_check', sql`${t.status} in ('queued', 'retrying', 'sent', 'failed')`),
    check(
      'notifications_delivered_via_check',
      sql`${t.deliveredVia} is null or ${t.deliveredVia} in ('email', 'whatsapp')`,
    ),
  ],
);

export type NotificationRow = typeof notifications.$inferSelect;
export type NewNotificationRow = typeof notifications.$inferInsert;

/** A member's channel and switches; no row means the defaults (email, every switch on). */
export const notificationPreferences = pgTable(
  'notification_preferences',
  {
    userId: uuid('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    channel: text('channel').$type<ChannelPreference>().notNull().default('email'),
    /** Only the switches the member changed; the rest take their default. */
    switches: jsonb('switches').$type<Partial<Record<PreferenceSwitch, boolean>>>().notNull().default({}),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check('notification_preferences_channel_check', sql`${t.channel} in ('email', 'whatsapp', 'both')`),
  ],
);

export type NotificationPreferencesRow = typeof notificationPreferences.$inferSelect;

/** WhatsApp messages sent per month (mess time zone), against the provider's monthly allowance. */
export const messagingUsage = pgTable(
  'messaging_usage',
  {
    month: text('month').primaryKey(),
    sent: integer('sent').notNull().default(0),
  },
  (t) => [check('messaging_usage_sent_check', sql`${t.sent} >= 0`)],
);
