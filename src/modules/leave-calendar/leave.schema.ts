import { sql } from 'drizzle-orm';
import { check, date, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from '../users/users.schema';
import { messIdColumn, sealedByMess } from '../messes/messes.schema';

export const LEAVE_STATUSES = ['pending', 'approved', 'rejected', 'cancelled'] as const;
export type LeaveStatus = (typeof LEAVE_STATUSES)[number];
/** A leave that holds its meals: it overlaps nothing else and counts towards the monthly cap. */
export const ACTIVE_LEAVE_STATUSES: LeaveStatus[] = ['pending', 'approved'];

/**
 * A member's leave: from the start of the first covered meal (`startsAt`) to the end of the last (`endsAt`), as
 * instants computed from the meal times when the leave was asked for. A meal slot is covered when its start falls in
 * [startsAt, endsAt).
 */
export const leaves = pgTable(
  'leaves',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    messId: messIdColumn(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    startDate: date('start_date', { mode: 'string' }).notNull(),
    endDate: date('end_date', { mode: 'string' }).notNull(),
    startMealType: text('start_meal_type').notNull(),
    endMealType: text('end_meal_type').notNull(),
    startsAt: timestamp('starts_at', { withTimezone: true }).notNull(),
    endsAt: timestamp('ends_at', { withTimezone: true }).notNull(),
    /** Calendar days with at least one covered meal. */
    days: integer('days').notNull(),
    reason: text('reason').notNull().default(''),
    status: text('status').$type<LeaveStatus>().notNull(),
    /** Who asked: the member, or a manager/admin recording it for them. */
    requestedBy: uuid('requested_by').references(() => users.id, { onDelete: 'set null' }),
    decidedBy: uuid('decided_by').references(() => users.id, { onDelete: 'set null' }),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    /** The reason given with a rejection. */
    decisionNote: text('decision_note').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    ...sealedByMess('leaves'),
    // A member's leaves by time: overlap and cap checks, the member's own list.
    index('leaves_user_starts_idx').on(t.userId, t.startsAt),
    // Who is on approved leave at an instant (headcount, reminders, marks): a range scan over approved rows only.
    index('leaves_approved_span_idx')
      .on(t.startsAt, t.endsAt)
      .where(sql`${t.status} = 'approved'`),
    // The managers' queue and list filters, newest first.
    index('leaves_mess_status_created_idx').on(t.messId, t.status, t.createdAt),
    check('leaves_status_check', sql`${t.status} in ('pending', 'approved', 'rejected', 'cancelled')`),
    check('leaves_dates_check', sql`${t.startDate} <= ${t.endDate} and ${t.startsAt} < ${t.endsAt}`),
    check('leaves_days_check', sql`${t.days} >= 1`),
  ],
);

export type LeaveRow = typeof leaves.$inferSelect;
export type NewLeaveRow = typeof leaves.$inferInsert;
