import { sql } from 'drizzle-orm';
import { check, date, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { EXTRA_ITEM_NAME_MAX, EXTRA_PRICE_MAX_PAISE } from '../mess-config/mess-config.schema';
import { users } from '../users/users.schema';
import { messIdColumn, sealedByMess } from '../messes/messes.schema';

/** The most of one item recorded in one go. */
export const EXTRA_QUANTITY_MAX = 20;

/**
 * Priced items a member took on top of the meals (an egg, a sweet, a guest meal), charged with the month's share.
 * The unit price is the catalogue's when recorded, so a later price change does not alter it.
 */
export const extras = pgTable(
  'extras',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    messId: messIdColumn(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    date: date('date', { mode: 'string' }).notNull(),
    /** A configured meal time, or null when the item was not taken with a meal. */
    mealType: text('meal_type'),
    /** The catalogue's spelling of the item when recorded. */
    item: text('item').notNull(),
    unitPricePaise: integer('unit_price_paise').notNull(),
    quantity: integer('quantity').notNull(),
    /** unit price × quantity, kept so sums are one column. */
    amountPaise: integer('amount_paise').notNull(),
    recordedBy: uuid('recorded_by')
      .notNull()
      .references(() => users.id),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    ...sealedByMess('extras'),
    index('extras_user_date_idx').on(t.userId, t.date),
    index('extras_mess_date_idx').on(t.messId, t.date),
    check('extras_quantity_check', sql`${t.quantity} between 1 and ${sql.raw(String(EXTRA_QUANTITY_MAX))}`),
    check(
      'extras_unit_price_check',
      sql`${t.unitPricePaise} > 0 and ${t.unitPricePaise} <= ${sql.raw(String(EXTRA_PRICE_MAX_PAISE))}`,
    ),
    check('extras_amount_check', sql`${t.amountPaise} = ${t.unitPricePaise} * ${t.quantity}`),
    check(
      'extras_item_check',
      sql`char_length(${t.item}) between 1 and ${sql.raw(String(EXTRA_ITEM_NAME_MAX))}`,
    ),
  ],
);

export type ExtraRow = typeof extras.$inferSelect;
export type NewExtraRow = typeof extras.$inferInsert;
