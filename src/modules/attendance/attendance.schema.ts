import { sql } from 'drizzle-orm';
import { check, date, index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { users } from '../users/users.schema';
import { messIdColumn, sealedByMess } from '../messes/messes.schema';
import { timeOrderedId } from '../../database/time-ordered-id';

export const ATTENDANCE_STATUSES = ['present', 'absent'] as const;
export type AttendanceStatus = (typeof ATTENDANCE_STATUSES)[number];

/**
 * Who made a mark: the member themself, the mess (a manager or an admin marking for the member, alone or in bulk),
 * or the counter (a scanned pass). A `mess` or `counter` mark is the kitchen's record: the member cannot change it.
 */
export const MARK_SOURCES = ['member', 'mess', 'counter'] as const;
export type MarkSource = (typeof MARK_SOURCES)[number];

/** One attendance mark per member, calendar date (the mess's time zone) and meal slot. */
export const attendance = pgTable(
  'attendance',
  {
    id: timeOrderedId(),
    messId: messIdColumn(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    date: date('date', { mode: 'string' }).notNull(),
    /** The name of a configured meal time, checked when the mark is written. */
    mealType: text('meal_type').notNull(),
    status: text('status').$type<AttendanceStatus>().notNull(),
    /**
     * The status the mark held before its last write (null: never written since it was made). The write sets it from
     * the row it locks, so RETURNING tells a changed status from a taken-over one without a locked read first.
     */
    previousStatus: text('previous_status').$type<AttendanceStatus>(),
    /** Who set the current status: the member, or a manager/admin marking for them. */
    markedBy: uuid('marked_by').references(() => users.id, { onDelete: 'set null' }),
    source: text('source').$type<MarkSource>().notNull().default('member'),
    /** When the current status was set; a re-statement of the same status leaves it alone. */
    markedAt: timestamp('marked_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    ...sealedByMess('attendance'),
    // Also serves the per-member filters (user_id, and user_id + a date range).
    uniqueIndex('attendance_mess_user_date_meal_unique').on(t.messId, t.userId, t.date, t.mealType),
    index('attendance_mess_date_meal_idx').on(t.messId, t.date, t.mealType),
    index('attendance_mess_date_status_idx').on(t.messId, t.date, t.status),
    check('attendance_status_check', sql`${t.status} in ('present', 'absent')`),
    check('attendance_source_check', sql`${t.source} in ('member', 'mess', 'counter')`),
    check('attendance_previous_status_check', sql`${t.previousStatus} in ('present', 'absent')`),
  ],
);

export type AttendanceRow = typeof attendance.$inferSelect;
export type NewAttendanceRow = typeof attendance.$inferInsert;
