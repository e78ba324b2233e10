import { sql } from 'drizzle-orm';
import {
  bigint,
  jsonb,
  check,
  date,
  index,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { messIdColumn, sealedByMess } from '../messes/messes.schema';
import { users } from '../users/users.schema';
import { accountEntries, NOTE_MAX } from './accounts.schema';

export const CLAIM_STATUSES = ['pending', 'accepted', 'rejected'] as const;
export type ClaimStatus = (typeof CLAIM_STATUSES)[number];
export const REFERENCE_SOURCES = ['claim', 'statement', 'gateway'] as const;
export type ReferenceSource = (typeof REFERENCE_SOURCES)[number];
export const REASON_MAX = 500;

const list = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(', '));

/**
 * A member's report of a bank transfer (UPI) to the mess: its 12-digit UTR, amount and date, until the treasurer
 * (or a bank statement) accepts it (a payment entry is recorded) or rejects it. One live claim (pending or accepted)
 * per UTR per mess, held by a unique key: a rejected claim frees its UTR for the member's corrected claim.
 */
export const paymentClaims = pgTable(
  'payment_claims',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    messId: messIdColumn(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    amountPaise: bigint('amount_paise', { mode: 'number' }).notNull(),
    date: date('date', { mode: 'string' }).notNull(),
    utr: text('utr').notNull(),
    note: text('note'),
    status: text('status').$type<ClaimStatus>().notNull().default('pending'),
    entryId: uuid('entry_id').references(() => accountEntries.id),
    decidedBy: uuid('decided_by').references(() => users.id),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    reason: text('reason'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    ...sealedByMess('payment_claims'),
    uniqueIndex('payment_claims_mess_utr_live_unique')
      .on(t.messId, t.utr)
      .where(sql`${t.status} <> 'rejected'`),
    index('payment_claims_mess_created_idx').on(t.messId, t.createdAt),
    index('payment_claims_user_idx').on(t.userId, t.createdAt),
    check('payment_claims_status_check', sql`${t.status} in (${list(CLAIM_STATUSES)})`),
    check('payment_claims_utr_check', sql`${t.utr} ~ '^[0-9]{12}$'`),
    check('payment_claims_amount_check', sql`${t.amountPaise} > 0`),
    check('payment_claims_note_check', sql`char_length(${t.note}) <= ${sql.raw(String(NOTE_MAX))}`),
    check('payment_claims_reason_check', sql`char_length(${t.reason}) <= ${sql.raw(String(REASON_MAX))}`),
  ],
);

export type PaymentClaimRow = typeof paymentClaims.$inferSelect;

/**
 * Each rupee recorded once: every payment that came from outside (a claim's UTR, a statement row's UTR, a gateway
 * payment id and its UPI reference) names its reference here, in the transaction that records the entry. The key
 * (mess, reference) decides between racing requests: whoever inserts it records the entry; the others record nothing
 * and answer the entry already recorded.
 */
export const paymentReferences = pgTable(
  'payment_references',
  {
    messId: messIdColumn(),
    reference: text('reference').notNull(),
    entryId: uuid('entry_id')
      .notNull()
      .references(() => accountEntries.id),
    source: text('source').$type<ReferenceSource>().notNull(),
    /** The claim's id, the statement's line, the gateway's payment id. */
    sourceId: text('source_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    ...sealedByMess('payment_references'),
    primaryKey({ name: 'payment_references_pkey', columns: [t.messId, t.reference] }),
    index('payment_references_entry_idx').on(t.entryId),
    check('payment_references_source_check', sql`${t.source} in (${list(REFERENCE_SOURCES)})`),
  ],
);

/** An order created at the payment gateway for a member: binds the gateway's order id to the member and the mess. */
export const gatewayOrders = pgTable(
  'gateway_orders',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    messId: messIdColumn(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    gatewayOrderId: text('gateway_order_id').notNull(),
    amountPaise: bigint('amount_paise', { mode: 'number' }).notNull(),
    status: text('status').notNull().default('created'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    ...sealedByMess('gateway_orders'),
    uniqueIndex('gateway_orders_gateway_order_id_unique').on(t.gatewayOrderId),
    check('gateway_orders_amount_check', sql`${t.amountPaise} > 0`),
  ],
);

export type GatewayOrderRow = typeof gatewayOrders.$inferSelect;

export const GATEWAY_EVENT_OUTCOMES = ['recorded', 'already-recorded', 'not-ours'] as const;
export type GatewayEventOutcome = (typeof GATEWAY_EVENT_OUTCOMES)[number];

/**
 * The gateway's inbox: each `payment.captured` whose signature verified, kept on receipt (the webhook answers 200
 * once its row is stored) and recorded from here just after, in batches. One row per gateway payment id, however
 * often the gateway delivers it. Not a mess's table: the webhook names no mess; the order found for it decides the
 * mess the payment is recorded in (`mess_id`, once processed). A row not processed (a replica stopped in between) is
 * claimed again when its lease (`claimed_until`) has passed.
 */
export const gatewayEvents = pgTable(
  'gateway_events',
  {
    paymentId: text('payment_id').primaryKey(),
    orderId: text('order_id').notNull(),
    amountPaise: bigint('amount_paise', { mode: 'number' }).notNull(),
    method: text('method'),
    capturedAt: timestamp('captured_at', { withTimezone: true }),
    /** The UPI reference (12 digits) the gateway reports, when it does: held once with the payment id. */
    rrn: text('rrn'),
    /** The event as delivered (signature verified), for whoever reads the inbox at 3 a.m. */
    payload: jsonb('payload').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    claimedUntil: timestamp('claimed_until', { withTimezone: true }),
    processedAt: timestamp('processed_at', { withTimezone: true }),
    outcome: text('outcome').$type<GatewayEventOutcome>(),
    messId: uuid('mess_id'),
    entryId: uuid('entry_id'),
  },
  (t) => [
    index('gateway_events_pending_idx')
      .on(t.receivedAt)
      .where(sql`${t.processedAt} is null`),
    check('gateway_events_amount_check', sql`${t.amountPaise} > 0`),
    check(
      'gateway_events_outcome_check',
      sql`${t.outcome} is null or ${t.outcome} in (${list(GATEWAY_EVENT_OUTCOMES)})`,
    ),
  ],
);

export type GatewayEventRow = typeof gatewayEvents.$inferSelect;
