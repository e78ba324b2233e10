import { sql } from 'drizzle-orm';
import { check, date, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { MAX_AMOUNT_RUPEES } from '../../common/money/money';
import { users } from '../users/users.schema';
import { messIdColumn, sealedByMess } from '../messes/messes.schema';

/** The longest expense description accepted. */
export const EXPENSE_DESCRIPTION_MAX = 500;
/** Mess configuration allows category names of 1 to 50 characters. */
export const EXPENSE_CATEGORY_MAX = 50;

/** What the mess spent. Money is integer paise so sums are exact; the API speaks rupees. */
export const expenses = pgTable(
  'expenses',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    messId: messIdColumn(),
    /** One of the configured categories at the time it was recorded (the configuration may change later). */
    category: text('category').notNull(),
    amountPaise: integer('amount_paise').notNull(),
    description: text('description').notNull().default(''),
    date: date('date', { mode: 'string' }).notNull(),
    /** The member who recorded it: the owner who may change it (besides an admin). Never changes. */
    recordedBy: uuid('recorded_by')
      .notNull()
      .references(() => users.id),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    ...sealedByMess('expenses'),
    // The list is newest first (date, created_at, id all descending): read backwards, these ascending indexes
    // give exactly that order, with or without a date range, and with a category filter.
    index('expenses_mess_date_created_id_idx').on(t.messId, t.date, t.createdAt, t.id),
    index('expenses_category_date_created_id_idx').on(t.category, t.date, t.createdAt, t.id),
    index('expenses_recorded_by_idx').on(t.recordedBy),
    check(
      'expenses_amount_check',
      sql`${t.amountPaise} > 0 and ${t.amountPaise} <= ${sql.raw(String(MAX_AMOUNT_RUPEES * 100))}`,
    ),
    check(
      'expenses_category_check',
      sql`char_length(${t.category}) between 1 and ${sql.raw(String(EXPENSE_CATEGORY_MAX))}`,
    ),
    check(
      'expenses_description_check',
      sql`char_length(${t.description}) <= ${sql.raw(String(EXPENSE_DESCRIPTION_MAX))}`,
    ),
  ],
);

export type ExpenseRow = typeof expenses.$inferSelect;
export type NewExpenseRow = typeof expenses.$inferInsert;
