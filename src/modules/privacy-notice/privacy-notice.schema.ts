import { sql } from 'drizzle-orm';
import { index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

/**
 * The deployment's privacy notice (extension 2.3), one for the whole deployment, not a field of any mess: every
 * version ever set, newest last. The notice in force is the row not withdrawn (at most one, held by a unique index);
 * setting a new one withdraws it, `privacyNotice: null` withdraws it and sets none. Which version each member
 * accepted, and when, is on their `users` row.
 */
export const privacyNotices = pgTable(
  'privacy_notices',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    version: text('version').notNull(),
    url: text('url').notNull(),
    grievanceOfficerName: text('grievance_officer_name').notNull(),
    grievanceOfficerEmail: text('grievance_officer_email').notNull(),
    /** The admin who set it (no foreign key: an admin erased later leaves the history as it was). */
    setBy: uuid('set_by'),
    setAt: timestamp('set_at', { withTimezone: true }).notNull().defaultNow(),
    withdrawnAt: timestamp('withdrawn_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('privacy_notices_in_force_unique')
      .on(sql`(true)`)
      .where(sql`${t.withdrawnAt} is null`),
    index('privacy_notices_set_at_idx').on(t.setAt),
  ],
);

export type PrivacyNoticeRow = typeof privacyNotices.$inferSelect;
