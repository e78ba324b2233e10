import { sql } from 'drizzle-orm';
import {
  check,
  date,
  index,
  pgTable,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { users } from '../users/users.schema';
import { messIdColumn, sealedByMess } from '../messes/messes.schema';

export const MAX_COMMENT_LENGTH = 1000;

/** A member's rating of one meal slot: at most one per member, date and meal type. */
export const feedback = pgTable(
  'feedback',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    messId: messIdColumn(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    date: date('date', { mode: 'string' }).notNull(),
    mealType: text('meal_type').notNull(),
    rating: smallint('rating').notNull(),
    comment: text('comment').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    ...sealedByMess('feedback'),
    uniqueIndex('feedback_mess_user_date_meal_unique').on(t.messId, t.userId, t.date, t.mealType),
    index('feedback_mess_date_idx').on(t.messId, t.date),
    index('feedback_meal_type_date_idx').on(t.mealType, t.date),
    index('feedback_rating_idx').on(t.rating),
    check('feedback_rating_check', sql`${t.rating} between 1 and 5`),
    check(
      'feedback_comment_length_check',
      sql`char_length(${t.comment}) <= ${sql.raw(String(MAX_COMMENT_LENGTH))}`,
    ),
  ],
);

export type FeedbackRow = typeof feedback.$inferSelect;
export type NewFeedbackRow = typeof feedback.$inferInsert;
