import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';
import { users } from '../users/users.schema';
import { messIdColumn, sealedByMess } from '../messes/messes.schema';

export const ENTRY_KINDS = ['charge', 'payment', 'adjustment', 'reversal', 'opening'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];
export const DIRECTIONS = ['debit', 'credit'] as const;
export type Direction = (typeof DIRECTIONS)[number];
export const PAYMENT_METHODS = ['cash', 'upi', 'bank', 'card', 'other'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** The longest payment reference and entry note accepted. */
export const REFERENCE_MAX = 100;
export const NOTE_MAX = 500;

const list = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(', '));

/**
 * What a month's charge is made of, as the close froze it: the member's meals at the month's rate per meal (their
 * share under the charge method), and their extras by item. mealsPaise + extrasPaise = the charge's amount.
 */
export interface ChargeItems {
  method: string;
  meals: number;
  /**
   * The month's cost per meal under the method, rounded to the paisa (null: no meals that month). The share is the
   * exact product rounded as the bill rounds, so meals × this rate can differ from mealsPaise by a few paise.
   */
  ratePerMealPaise: number | null;
  mealsPaise: number;
  /**
   * What the share is a share of, as the close froze it (charges closed before these were recorded have none): all
   * meals of the month, the month's total and its active members. mealsPaise is meals ÷ allMeals × monthTotalPaise
   * (spec: ÷ activeMembers too) to less than a paisa, by the largest-remainder rule.
   */
  allMeals?: number;
  monthTotalPaise?: number;
  activeMembers?: number;
  extras: { item: string; quantity: number; unitPricePaise: number; amountPaise: number }[];
  extrasPaise: number;
  /**
   * Extension 2.3, a charge by the daily rate (`method: 'daily'`): days on the rolls × the rate, less each leave's
   * rebate; mealsPaise (the share) = daysPaise − Σ rebates' amountPaise.
   */
  daily?: ChargeDailyItems;
}

/** The daily rate's part of a charge: the days at the rate, and each rebate with its leave. */
export interface ChargeDailyItems {
  days: number;
  ratePaise: number;
  daysPaise: number;
  /**
   * Each leave with full days in the month on the rolls, by start date; those with amountPaise 0 rebate nothing and
   * are printed with why (charges closed before those were kept list only the leaves that rebate something).
   */
  rebates: {
    leaveId: string;
    startDate: string;
    endDate: string;
    startMealType: string;
    endMealType: string;
    /** The leave's full days in the month on the rolls, and of those the rebated ones. */
    days: number;
    rebatedDays: number;
    percent: number;
    amountPaise: number;
    /** All the leave's full days (what chose its band), and whether that is below every band. */
    leaveDays?: number;
    belowBands?: boolean;
    /** Its full days in the month before the member was on the rolls, and its other days off them. */
    beforeJoiningDays?: number;
    offRollsDays?: number;
  }[];
  rebatePaise: number;
}

/**
 * A member's account: an append-only list of entries. The balance is Σ debits − Σ credits. A database trigger
 * (migration 0011) refuses every UPDATE and DELETE of a row: a mistake is undone by a reversal entry, never by an
 * edit. Users are never deleted, so the references need no ON DELETE action (one would be an UPDATE).
 */
export const accountEntries = pgTable(
  'account_entries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    messId: messIdColumn(),
    /** Order of recording: ties on `date` are broken by it (a close posts its charges in one instant). */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    kind: text('kind').$type<EntryKind>().notNull(),
    direction: text('direction').$type<Direction>().notNull(),
    /** Paise, > 0 (a charge can exceed one payment's limit: a month of meals and extras). */
    amountPaise: bigint('amount_paise', { mode: 'number' }).notNull(),
    /** The billed month of a charge and of the reversal a reopen posts for it. */
    month: text('month'),
    date: date('date', { mode: 'string' }).notNull(),
    method: text('method').$type<PaymentMethod>(),
    reference: text('reference'),
    note: text('note'),
    /** The entry a reversal undoes; unique, so an entry is reversed at most once, also under concurrent requests. */
    reverses: uuid('reverses').references((): AnyPgColumn => accountEntries.id),
    recordedBy: uuid('recorded_by').references(() => users.id),
    /** A month's charge: what it is made of, frozen by the close (null on other entries and older charges). */
    items: jsonb('items').$type<ChargeItems>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    ...sealedByMess('account_entries'),
    uniqueIndex('account_entries_seq_unique').on(t.seq),
    uniqueIndex('account_entries_reverses_unique').on(t.reverses),
    // One opening per member, whatever the requests racing: the database says so.
    uniqueIndex('account_entries_mess_opening_unique')
      .on(t.messId, t.userId)
      .where(sql`${t.kind} = 'opening'`),
    // A member's statement and entry list: by date, then order of recording; also the balance per member.
    index('account_entries_user_date_seq_idx').on(t.userId, t.date, t.seq),
    // A mess's entries: the dues list's balances and the university view's dues aggregate the mess's entries, which
    // row-level security selects by mess_id (without this, a scan of every mess's entries).
    index('account_entries_mess_user_idx').on(t.messId, t.userId),
    // A payment's reference: a UTR already recorded (extension 2.2's claims and bank statements look it up).
    index('account_entries_mess_reference_idx')
      .on(t.messId, t.reference)
      .where(sql`${t.reference} is not null`),
    // A month's charges, for the reversals of a reopen.
    index('account_entries_mess_month_kind_idx')
      .on(t.messId, t.month, t.kind)
      .where(sql`${t.month} is not null`),
    check('account_entries_kind_check', sql`${t.kind} in (${list(ENTRY_KINDS)})`),
    check('account_entries_direction_check', sql`${t.direction} in (${list(DIRECTIONS)})`),
    check('account_entries_amount_check', sql`${t.amountPaise} > 0`),
    check(
      'account_entries_month_check',
      sql`${t.month} is null or ${t.month} ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'`,
    ),
    check('account_entries_charge_month_check', sql`${t.kind} <> 'charge' or ${t.month} is not null`),
    check(
      'account_entries_payment_check',
      sql`(${t.kind} = 'payment') = (${t.method} is not null) and (${t.method} is null or ${t.method} in (${list(PAYMENT_METHODS)}))`,
    ),
    check('account_entries_reversal_check', sql`(${t.kind} = 'reversal') = (${t.reverses} is not null)`),
    check(
      'account_entries_reference_check',
      sql`char_length(${t.reference}) <= ${sql.raw(String(REFERENCE_MAX))}`,
    ),
    check('account_entries_note_check', sql`char_length(${t.note}) <= ${sql.raw(String(NOTE_MAX))}`),
  ],
);

/**
 * Each member's balance in each mess (Σ debits − Σ credits of their entries there), kept by the database: a
 * statement-level trigger on `account_entries` (migration `account_balances`) adds every statement's new entries in
 * the same transaction. Entries are append-only, so the sum never needs undoing. Read where a balance is summed over
 * many members (the dues list's reminders, the university's dues); a member's own statement still adds its entries.
 */
export const accountBalances = pgTable(
  'account_balances',
  {
    messId: messIdColumn(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    balancePaise: bigint('balance_paise', { mode: 'number' }).notNull(),
  },
  (t) => [...sealedByMess('account_balances'), primaryKey({ columns: [t.messId, t.userId] })],
);

export type AccountEntryRow = typeof accountEntries.$inferSelect;
export type NewAccountEntryRow = typeof accountEntries.$inferInsert;

/**
 * Requests made with an `Idempotency-Key` (IETF draft "The Idempotency-Key HTTP Header Field"): scoped to the
 * caller and the route, with a fingerprint of the body and the first answer. The unique key makes concurrent
 * repeats wait for the first and then replay it: one entry, however many arrive at once.
 */
export const idempotentRequests = pgTable(
  'idempotent_requests',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    messId: messIdColumn(),
    callerId: uuid('caller_id')
      .notNull()
      .references(() => users.id),
    route: text('route').notNull(),
    key: text('key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    status: integer('status').notNull(),
    response: jsonb('response').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    ...sealedByMess('idempotent_requests'),
    uniqueIndex('idempotent_requests_mess_scope_unique').on(t.messId, t.callerId, t.route, t.key),
  ],
);
