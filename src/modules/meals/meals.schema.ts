import { sql } from 'drizzle-orm';
import {
  check,
  date,
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
import { messIdColumn, sealedByMess } from '../messes/messes.schema';

export const MEAL_TYPE_MAX = 30;
export const MEAL_DISHES_MAX = 30;
export const DISH_NAME_MAX = 100;
export const MEAL_NOTES_MAX = 500;
export const ROTATION_WEEKS_MAX = 6;

export type MenuSource = 'manager' | 'rotation';

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
    /** `rotation` when published from the weekly menu and not edited since; `manager` otherwise. */
    source: text('source').$type<MenuSource>().notNull().default('manager'),
    /**
     * The manager who published it: the owner who may change it (besides an admin). Never changes, except that a
     * manager who edits a menu of the weekly menu (any manager may) becomes its publisher.
     */
    createdBy: uuid('created_by')
      .notNull()
      .references(() => users.id),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    ...sealedByMess('meals'),
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
    check('meals_source_check', sql`${t.source} in ('manager', 'rotation')`),
    check('meals_notes_check', sql`char_length(${t.notes}) <= ${sql.raw(String(MEAL_NOTES_MAX))}`),
  ],
);

export type MealRow = typeof meals.$inferSelect;
export type NewMealRow = typeof meals.$inferInsert;

/** One entry of a rotation: the menu of a (week, day, meal type) slot. */
export interface RotationEntry {
  week: number;
  day: string;
  mealType: string;
  dishes: string[];
  notes: string;
}

/** The weekly menu: one rotation per mess, of 1 to 6 weeks from a Monday. */
export const mealRotations = pgTable(
  'meal_rotations',
  {
    messId: messIdColumn(),
    startsOn: date('starts_on', { mode: 'string' }).notNull(),
    weeks: integer('weeks').notNull(),
    entries: jsonb('entries').$type<RotationEntry[]>().notNull(),
    updatedBy: uuid('updated_by')
      .notNull()
      .references(() => users.id),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    ...sealedByMess('meal_rotations'),
    uniqueIndex('meal_rotations_mess_unique').on(t.messId),
    check('meal_rotations_weeks_check', sql`${t.weeks} between 1 and ${sql.raw(String(ROTATION_WEEKS_MAX))}`),
  ],
);

/** Slots a manager withdrew: the rotation leaves them empty until a manager publishes them again. */
export const mealWithdrawnSlots = pgTable(
  'meal_withdrawn_slots',
  {
    messId: messIdColumn(),
    date: date('date', { mode: 'string' }).notNull(),
    mealType: text('meal_type').notNull(),
  },
  (t) => [
    ...sealedByMess('meal_withdrawn_slots'),
    uniqueIndex('meal_withdrawn_slots_mess_date_meal_type_unique').on(t.messId, t.date, t.mealType),
  ],
);

export type MealRotationRow = typeof mealRotations.$inferSelect;
