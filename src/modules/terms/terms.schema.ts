import { sql } from 'drizzle-orm';
import {
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
} from 'drizzle-orm/pg-core';
import { messes } from '../messes/messes.schema';
import { users } from '../users/users.schema';

/**
 * Extension 2.3, "Choosing a mess for a term". A window spans several messes of the deployment, so its tables are
 * the deployment's (as `messes` and `users` are), not one mess's: none has a `mess_id`. Its audit rows and its
 * moves are written in each mess concerned.
 */
export const messWindows = pgTable(
  'mess_windows',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    term: text('term').notNull(),
    opensAt: timestamp('opens_at', { withTimezone: true }).notNull(),
    closesAt: timestamp('closes_at', { withTimezone: true }).notNull(),
    /** The first day of the term: the moves are made at its first minute (mess time zone). */
    effectiveFrom: date('effective_from', { mode: 'string' }).notNull(),
    maxPreferences: integer('max_preferences').notNull(),
    /** The messes members may choose, in the order the admin gave (ids). */
    messIds: jsonb('mess_ids').$type<string[]>().notNull(),
    /** 32 hex characters, drawn at the allocation. */
    seed: text('seed'),
    /** Each mess's seats at the start of the lottery (null: unlimited), by mess id; null until allocated. */
    seats: jsonb('seats').$type<Record<string, number | null>>(),
    allocatedAt: timestamp('allocated_at', { withTimezone: true }),
    appliedAt: timestamp('applied_at', { withTimezone: true }),
    cancelledAt: timestamp('cancelled_at', { withTimezone: true }),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // One window per term, among those not cancelled.
    uniqueIndex('mess_windows_term_unique')
      .on(t.term)
      .where(sql`${t.cancelledAt} is null`),
    // What the scheduler looks for every minute: windows not yet allocated or applied.
    index('mess_windows_pending_idx')
      .on(t.closesAt)
      .where(sql`${t.appliedAt} is null and ${t.cancelledAt} is null`),
    check('mess_windows_span_check', sql`${t.opensAt} < ${t.closesAt}`),
    check('mess_windows_max_preferences_check', sql`${t.maxPreferences} between 1 and 10`),
    check('mess_windows_seed_check', sql`${t.seed} is null or ${t.seed} ~ '^[0-9a-f]{32}$'`),
  ],
);

/** A member's ranked choice in a window: one row per (window, member), saved over by an upsert. */
export const messWindowChoices = pgTable(
  'mess_window_choices',
  {
    windowId: uuid('window_id')
      .notNull()
      .references(() => messWindows.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Mess ids, best first. */
    preferences: jsonb('preferences').$type<string[]>().notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.windowId, t.userId] })],
);

/** The outcome of a line's move on `effectiveFrom`. */
export const MOVE_OUTCOMES = ['moved', 'stayed', 'moved-by-hand', 'full', 'left'] as const;
export type MoveOutcome = (typeof MOVE_OUTCOMES)[number];

/** The allocation: one line per member with a choice at the close, in the order of the draw. */
export const messWindowAllocations = pgTable(
  'mess_window_allocations',
  {
    windowId: uuid('window_id')
      .notNull()
      .references(() => messWindows.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    hash: text('hash').notNull(),
    fromMessId: uuid('from_mess_id')
      .notNull()
      .references(() => messes.id),
    toMessId: uuid('to_mess_id').references(() => messes.id),
    rank: integer('rank'),
    /** The member's preferences the lottery used (mess ids, best first): published, so anyone can replay it. */
    preferences: jsonb('preferences').$type<string[]>().notNull(),
    /** Set once, in the transaction of the line's move (or of its being skipped): what makes a move happen once. */
    outcome: text('outcome').$type<MoveOutcome>(),
    appliedAt: timestamp('applied_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.windowId, t.userId] }),
    uniqueIndex('mess_window_allocations_position_unique').on(t.windowId, t.position),
    check(
      'mess_window_allocations_outcome_check',
      sql`${t.outcome} is null or ${t.outcome} in (${sql.raw(MOVE_OUTCOMES.map((o) => `'${o}'`).join(', '))})`,
    ),
  ],
);

export type MessWindowRow = typeof messWindows.$inferSelect;
export type MessWindowChoiceRow = typeof messWindowChoices.$inferSelect;
export type MessWindowAllocationRow = typeof messWindowAllocations.$inferSelect;
