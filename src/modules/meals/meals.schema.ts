import { sql } from 'drizzle-orm';
import { check, date, index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { users } from '../users/users.schema';
import { messIdColumn } from '../messes/messes.schema';

export const MEAL_TYPE_MAX = 30;
export const MEAL_DISHES_MAX = 30;
export const DISH_NAME_MAX = 100;
export const MEAL_NOTES_MAX = 500;

/** The menu: one record per (date, meal type). */
export const meals = pgTable(
  'meals',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    messId: messIdColumn(),
    date: date('date', { mode: 'string' }).notNull(),
    /** One of the configured meal times when published (the configuration may change later). */
    mealType: text('meal_type').notNull(),
    dishes: text('dishes').array().notNull(),
    notes: text('notes').notNull().default(''),
    /** The manager who published it: the owner who may change it (besides an admin). Never changes. */
    createdBy: uuid('created_by')
      .notNull()
      .references(() => users.id),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // one menu per meal; also serves the date and week (date range) filters
    uniqueIndex('meals_mess_date_meal_type_unique').on(t.messId, t.date, t.mealType),
    index('meals_meal_type_date_idx').on(t.mealType, t.date),
    index('meals_created_by_idx').on(t.createdBy),
    check(
      'meals_dishes_check',
      sql`cardinality(${t.dishes}) between 1 and ${sql.raw(String(MEAL_DISHES_MAX))} and array_position(${t.dishes}, null) is null`,
    ),
    check(
      'meals_meal_type_check',
      sql`char_length(${t.mealType}) between 1 and ${sql.raw(String(MEAL_TYPE_MAX))}`,
    ),
    check('meals_notes_check', sql`char_length(${t.notes}) <= ${sql.raw(String(MEAL_NOTES_MAX))}`),
  ],
);

export type MealRow = typeof meals.$inferSelect;
export type NewMealRow = typeof meals.$inferInsert;
