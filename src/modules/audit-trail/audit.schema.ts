import { sql } from 'drizzle-orm';
import { check, index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from '../users/users.schema';
import { messIdColumn, sealedByMess } from '../messes/messes.schema';

/** What an audit row is about: money and membership. */
export const AUDIT_ENTITIES = [
  'expense',
  'account',
  'month',
  'extra',
  'leave',
  'user',
  'config',
  'attendance',
  'rotation',
  'window',
  'waste',
] as const;
export type AuditEntity = (typeof AUDIT_ENTITIES)[number];

/** Longest `action` and `entity_id` stored. */
export const AUDIT_ACTION_MAX = 64;
export const AUDIT_ENTITY_ID_MAX = 100;

/**
 * The audit trail: one row per change to money or membership, written in the transaction of the change. Append
 * only: a trigger (migration `audit_append_only`) refuses UPDATE, DELETE and TRUNCATE, whoever runs them.
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    messId: messIdColumn(),
    // clock_timestamp(), not now(): rows written by one transaction keep the order they were written in.
    at: timestamp('at', { withTimezone: true })
      .notNull()
      .default(sql`clock_timestamp()`),
    /** Who made the change; null for the service itself (start-up, schedules, command-line tools). */
    actorId: uuid('actor_id').references(() => users.id),
    action: text('action').notNull(),
    entity: text('entity').$type<AuditEntity>().notNull(),
    /** The changed record's id (a UUID, or a month `YYYY-MM`). */
    entityId: text('entity_id').notNull(),
    /** The record before and after the change; money as integer paise in fields named `…Paise`. */
    before: jsonb('before'),
    after: jsonb('after'),
    /** The HTTP request that made the change (as in the logs and `X-Request-Id`); null outside a request. */
    requestId: text('request_id'),
  },
  (t) => [
    ...sealedByMess('audit_events'),
    // Newest first, all of it or per filter; read backwards, these ascending indexes give that order.
    index('audit_events_mess_at_idx').on(t.messId, t.at, t.id),
    index('audit_events_entity_at_idx').on(t.entity, t.at),
    // An entity id is a UUID or a month: few rows share one, so `entity` is checked on the few it finds.
    index('audit_events_entity_id_at_idx').on(t.entityId, t.at),
    index('audit_events_actor_at_idx').on(t.actorId, t.at),
    // The rows about a member's records (marks, extras, leave name them as `userId`): a member's export and erasure.
    index('audit_events_after_user_idx').on(sql`(${t.after} ->> 'userId')`),
    index('audit_events_before_user_idx').on(sql`(${t.before} ->> 'userId')`),
    check(
      'audit_events_entity_check',
      sql`${t.entity} in (${sql.raw(AUDIT_ENTITIES.map((e) => `'${e}'`).join(', '))})`,
    ),
    check(
      'audit_events_action_check',
      sql`char_length(${t.action}) between 1 and ${sql.raw(String(AUDIT_ACTION_MAX))}`,
    ),
    check(
      'audit_events_entity_id_check',
      sql`char_length(${t.entityId}) between 1 and ${sql.raw(String(AUDIT_ENTITY_ID_MAX))}`,
    ),
  ],
);

export type AuditEventRow = typeof auditEvents.$inferSelect;
export type NewAuditEventRow = typeof auditEvents.$inferInsert;
