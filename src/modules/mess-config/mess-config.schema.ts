import { sql } from 'drizzle-orm';
import {
  check,
  integer,
  jsonb,
  numeric,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { users } from '../users/users.schema';
import { messIdColumn, sealedByMess } from '../messes/messes.schema';

/**
 * The ways to share a month's cost among the members (billing's formula computes each): the configuration names the
 * one the bill is charged by. Listed here, below billing, so that billing builds on the configuration and not back.
 */
export const CHARGE_METHODS = ['spec', 'proportional', 'daily'] as const;
export type ChargeMethod = (typeof CHARGE_METHODS)[number];

/** Extension 2.3: a rebate band of the daily rate: a leave of at least `minDays` full days is rebated `percent` %. */
export interface RebateBand {
  minDays: number;
  percent: number;
}

/** The daily rate's limits: the rate (₹10,000 a day), the bands, the term's cap. */
export const DAILY_RATE_MAX_PAISE = 1_000_000;
export const REBATE_BANDS_MAX = 10;
export const REBATE_DAYS_PER_TERM_MAX = 366;

export interface MealTime {
  name: string;
  startTime: string;
  endTime: string;
}

/** Extension 2.1: how members ask for leave. */
export interface LeavePolicy {
  minDays: number;
  applyBeforeHours: number;
  maxDaysPerMonth: number;
  requiresApproval: boolean;
}

/** Extension 2.1: when members may mark their own meals. */
export interface MarkingWindow {
  daysAhead: number;
  closesMinutesAfterEnd: number;
}

/** Extension 2.1: a priced extra of the catalogue (an egg, a sweet, a guest meal); the price in paise. */
export interface ExtraItem {
  name: string;
  pricePaise: number;
}

/** Catalogue limits: item names, how many items, the dearest price (₹10,000, far beyond a guest meal). */
export const EXTRA_ITEM_NAME_MAX = 50;
export const EXTRA_ITEMS_MAX = 100;
export const EXTRA_PRICE_MAX_PAISE = 1_000_000;

/** A mess's configuration: one row per mess, none until the mess is configured (setup, or `POST /messes`). */
export const messConfig = pgTable(
  'mess_config',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    messId: messIdColumn(),
    messName: text('mess_name').notNull(),
    description: text('description').notNull().default(''),
    email: text('email').notNull(),
    phone: text('phone').notNull(),
    expenseCategories: jsonb('expense_categories').$type<string[]>().notNull(),
    mealTimes: jsonb('meal_times').$type<MealTime[]>().notNull(),
    /** Optional monthly spending limit in rupees (exact decimal). */
    monthlyBudget: numeric('monthly_budget', { precision: 12, scale: 2 }),
    /** The bill method a month's close posts to the accounts, and the bill endpoints' default. */
    chargeMethod: text('charge_method').$type<ChargeMethod>().notNull().default('proportional'),
    /** Null: the defaults (DEFAULT_LEAVE_POLICY). */
    leavePolicy: jsonb('leave_policy').$type<LeavePolicy>(),
    /** Extension 2.3: the daily rate in paise; null until set (required by `chargeMethod: 'daily'`). */
    dailyRatePaise: integer('daily_rate_paise'),
    /** Null: the default band (a leave of 1 day or more rebated in full). */
    rebateBands: jsonb('rebate_bands').$type<RebateBand[]>(),
    /** At most this many leave days rebated per member in a term; 0: no cap. */
    rebateDaysPerTerm: integer('rebate_days_per_term').notNull().default(0),
    /** Null: the default terms (January and July). */
    termStartMonths: jsonb('term_start_months').$type<number[]>(),
    /** Null: no window, members mark any date. */
    markingWindow: jsonb('marking_window').$type<MarkingWindow>(),
    /** The extras catalogue; empty until the mess prices some. */
    extraItems: jsonb('extra_items').$type<ExtraItem[]>().notNull().default([]),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    ...sealedByMess('mess_config'),
    uniqueIndex('mess_config_mess_unique').on(t.messId),
    uniqueIndex('mess_config_name_unique').on(sql`lower(${t.messName})`),
    check('mess_config_charge_method_check', sql`${t.chargeMethod} in ('spec', 'proportional', 'daily')`),
    check(
      'mess_config_daily_rate_check',
      sql`${t.dailyRatePaise} is null or ${t.dailyRatePaise} between 1 and ${sql.raw(String(DAILY_RATE_MAX_PAISE))}`,
    ),
    check(
      'mess_config_daily_needs_rate_check',
      sql`${t.chargeMethod} <> 'daily' or ${t.dailyRatePaise} is not null`,
    ),
    check(
      'mess_config_rebate_days_check',
      sql`${t.rebateDaysPerTerm} between 0 and ${sql.raw(String(REBATE_DAYS_PER_TERM_MAX))}`,
    ),
  ],
);

export type MessConfigRow = typeof messConfig.$inferSelect;
