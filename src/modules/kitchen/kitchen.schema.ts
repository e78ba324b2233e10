import { sql } from 'drizzle-orm';
import { check, date, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { users } from '../users/users.schema';
import { messIdColumn, sealedByMess } from '../messes/messes.schema';
import type { FittedModel } from './forecast-model';

/** The most a meal's leftovers may weigh (10,000 kg), in grams, and the most plates a kitchen prepares. */
export const LEFTOVER_GRAMS_MAX = 10_000_000;
export const PREPARED_PLATES_MAX = 100_000;
export const WASTE_NOTE_MAX = 500;

/**
 * The waste log: what a meal's kitchen prepared and threw away, one record per meal (a second record replaces it,
 * audited). Grams inside, kilograms (three decimals) at the edge.
 */
export const kitchenWaste = pgTable(
  'kitchen_waste',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    messId: messIdColumn(),
    date: date('date', { mode: 'string' }).notNull(),
    /** A configured meal time when recorded. */
    mealType: text('meal_type').notNull(),
    preparedPlates: integer('prepared_plates'),
    leftoverGrams: integer('leftover_grams').notNull(),
    note: text('note').notNull().default(''),
    recordedBy: uuid('recorded_by')
      .notNull()
      .references(() => users.id),
    /**
     * The meal's present marks, counted when the record is written and again when a mark of the meal changes
     * (WasteCountListener): the university's leftover per diner reads it instead of counting every mess's marks.
     * Null in records from before it was kept (those are counted when read).
     */
    presentMarks: integer('present_marks'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    ...sealedByMess('kitchen_waste'),
    // One record per meal; also serves the month's list (a date range).
    uniqueIndex('kitchen_waste_mess_date_meal_unique').on(t.messId, t.date, t.mealType),
    check(
      'kitchen_waste_leftover_check',
      sql`${t.leftoverGrams} between 0 and ${sql.raw(String(LEFTOVER_GRAMS_MAX))}`,
    ),
    check(
      'kitchen_waste_prepared_check',
      sql`${t.preparedPlates} is null or ${t.preparedPlates} between 0 and ${sql.raw(String(PREPARED_PLATES_MAX))}`,
    ),
    check('kitchen_waste_note_check', sql`char_length(${t.note}) <= ${sql.raw(String(WASTE_NOTE_MAX))}`),
  ],
);

/**
 * Each meal's last forecast answered before its day began (by the forecast route, or the hourly tick for tomorrow),
 * `made_at` by the app's clock: what the university's view shows of tomorrow without forecasting every mess on each
 * request, and what the back-test reports for a past meal (what the service said the evening before). A row kept
 * before only such answers were (an answer of the meal's own day) has a `made_at` on or after its day's start.
 */
export const kitchenForecasts = pgTable(
  'kitchen_forecasts',
  {
    messId: messIdColumn(),
    date: date('date', { mode: 'string' }).notNull(),
    mealType: text('meal_type').notNull(),
    expected: integer('expected').notNull(),
    low: integer('low').notNull(),
    high: integer('high').notNull(),
    madeAt: timestamp('made_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    ...sealedByMess('kitchen_forecasts'),
    uniqueIndex('kitchen_forecasts_mess_date_meal_unique').on(t.messId, t.date, t.mealType),
    check(
      'kitchen_forecasts_range_check',
      sql`0 <= ${t.low} and ${t.low} <= ${t.expected} and ${t.expected} <= ${t.high}`,
    ),
  ],
);

/**
 * Each mess's forecasting model as fitted from the days before `cutoff` (by the hourly job, or in the background
 * when a forecast finds it out of date), so a forecast of today and later reads only its own dates. `changes`
 * counts the changes of records before today heard (ForecastModelListener), `fittedChanges` the count the fit
 * read before it read the records: the model is out of date when they differ or its cutoff is not today.
 */
export const kitchenModels = pgTable(
  'kitchen_models',
  {
    messId: messIdColumn(),
    cutoff: date('cutoff', { mode: 'string' }).notNull(),
    model: jsonb('model').$type<FittedModel>().notNull(),
    changes: integer('changes').notNull().default(0),
    fittedChanges: integer('fitted_changes').notNull().default(0),
    madeAt: timestamp('made_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [...sealedByMess('kitchen_models'), uniqueIndex('kitchen_models_mess_unique').on(t.messId)],
);

export type WasteRow = typeof kitchenWaste.$inferSelect;
export type NewWasteRow = typeof kitchenWaste.$inferInsert;
