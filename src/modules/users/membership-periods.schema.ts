import { sql } from 'drizzle-orm';
import { boolean, check, index, pgTable, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { messIdColumn, sealedByMess } from '../messes/messes.schema';
import { users } from './users.schema';

/**
 * Extension 2.3: since when each member has been an approved member of each mess, and whether they dined there: one
 * row per stretch, from the approval, the move in or the change of dining (`startedAt`) to the move out, rejection
 * or change of dining (`endedAt`; null while it lasts). Written by the users module in the transaction of each such
 * change; a member has at most one open stretch, in the mess they belong to. The daily rate bills the days of the
 * stretches with `dines` (the rolls), in the deployment's time zone: from the start's date to the day before the
 * end's date.
 */
export const membershipPeriods = pgTable(
  'membership_periods',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    messId: messIdColumn(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    endedAt: timestamp('ended_at', { withTimezone: true }),
    /** Whether the member dined in this stretch: only then are they on the mess's rolls. */
    dines: boolean('dines').notNull(),
  },
  (t) => [
    ...sealedByMess('membership_periods'),
    // The rolls of a month: the stretches of the mess that overlap it.
    index('membership_periods_mess_started_idx').on(t.messId, t.startedAt),
    index('membership_periods_user_idx').on(t.userId, t.startedAt),
    // At most one open stretch per member, in whichever mess.
    uniqueIndex('membership_periods_open_unique')
      .on(t.userId)
      .where(sql`${t.endedAt} is null`),
    check('membership_periods_span_check', sql`${t.endedAt} is null or ${t.endedAt} >= ${t.startedAt}`),
  ],
);

export type MembershipPeriodRow = typeof membershipPeriods.$inferSelect;
