import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { users } from '../users/users.schema';

export const ERASURE_REQUEST_STATUSES = ['pending', 'done'] as const;
export type ErasureRequestStatus = (typeof ERASURE_REQUEST_STATUSES)[number];
export const ERASURE_REASON_MAX = 1000;

/**
 * A member's request that their data be erased (extension 2.3): the deployment's, like `users` (a person may have
 * belonged to several messes; an admin decides). One pending request per member, held by a unique index. The
 * reason is the member's own text: erasure empties it and marks the request `done`.
 */
export const erasureRequests = pgTable(
  'erasure_requests',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    reason: text('reason').notNull().default(''),
    status: text('status').$type<ErasureRequestStatus>().notNull().default('pending'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    decidedBy: uuid('decided_by').references(() => users.id),
  },
  (t) => [
    uniqueIndex('erasure_requests_pending_unique')
      .on(t.userId)
      .where(sql`${t.status} = 'pending'`),
    index('erasure_requests_status_created_idx').on(t.status, t.createdAt),
    check('erasure_requests_status_check', sql`${t.status} in ('pending', 'done')`),
    check(
      'erasure_requests_reason_check',
      sql`char_length(${t.reason}) <= ${sql.raw(String(ERASURE_REASON_MAX))}`,
    ),
  ],
);

export type ErasureRequestRow = typeof erasureRequests.$inferSelect;
