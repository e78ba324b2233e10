import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { messIdColumn, sealedByMess } from '../messes/messes.schema';

/**
 * The transactional outbox (decision 0005): a durable domain event, written in the transaction of the change that
 * promises it (`DomainEventBus.publishWithin`) and handed to its listeners after the commit by the relay
 * (`OutboxRelay`), until they have all succeeded (`doneAt`). A row whose relay died is taken again once its claim
 * has lapsed (`claimedUntil`): listeners are idempotent (the notifications' dedupe keys).
 */
export const outboxEvents = pgTable(
  'outbox_events',
  {
    /** In the order written: the relay hands a mess's events on in this order. */
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** The mess the event is about (its payload's `messId`). */
    messId: messIdColumn(),
    /** A name of `EventMap` that is durable (`DURABLE_EVENTS`). [no personal text] */
    name: text('name').notNull(),
    /** The event's payload, as `EventMap` types it. */
    payload: jsonb('payload').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** A relay is handing the row on until then; past it, another may take it. */
    claimedUntil: timestamp('claimed_until', { withTimezone: true }),
    attempts: integer('attempts').notNull().default(0),
    /** The last listener failure (a message, never the payload). */
    lastError: text('last_error'),
    /** Every listener succeeded; kept a week, then deleted by the sweep. */
    doneAt: timestamp('done_at', { withTimezone: true }),
  },
  (t) => [
    ...sealedByMess('outbox_events'),
    index('outbox_events_pending_idx')
      .on(t.messId, t.id)
      .where(sql`${t.doneAt} is null`),
    index('outbox_events_done_idx').on(t.doneAt),
  ],
);

export type OutboxEventRow = typeof outboxEvents.$inferSelect;
