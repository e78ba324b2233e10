import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

import type { Role, UserStatus } from '../../common/auth/roles';
import { homeMessColumn } from '../messes/messes.schema';

export { ROLES, USER_STATUSES, type Role, type UserStatus } from '../../common/auth/roles';

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The mess the member belongs to now (extension 2.2); what they did in an earlier one stays there. */
    messId: homeMessColumn(),
    /** Stored as `normalizeEmail` writes it (NFKC, trimmed, lower-cased); unique. */
    email: text('email').notNull(),
    /** bcrypt hash; null for members who only sign in through the identity provider. */
    passwordHash: text('password_hash'),
    fullName: text('full_name').notNull(),
    collegeId: text('college_id').notNull().default(''),
    room: text('room').notNull().default(''),
    /** E.164, +91 and 10 digits. */
    phone: text('phone'),
    role: text('role').$type<Role>().notNull().default('student'),
    status: text('status').$type<UserStatus>().notNull().default('pending'),
    idpId: text('idp_id'),
    /** Eats at the mess: counted in totalMembers, the headcount, the attendance rate and the bill. */
    dines: boolean('dines').notNull().default(true),
    /** Bumped to revoke every token issued before (password change, rejection). */
    tokenVersion: integer('token_version').notNull().default(0),
    /** The privacy notice's version the member accepted (extension 2.3), and when; null: none accepted. */
    noticeVersion: text('notice_version'),
    noticeAcceptedAt: timestamp('notice_accepted_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('users_email_unique').on(t.email),
    uniqueIndex('users_idp_id_unique').on(t.idpId),
    index('users_mess_status_role_idx').on(t.messId, t.status, t.role),
    index('users_created_at_idx').on(t.createdAt),
    check('users_role_check', sql`${t.role} in ('student', 'manager', 'treasurer', 'admin')`),
    check('users_status_check', sql`${t.status} in ('pending', 'approved', 'rejected', 'erased')`),
    check('users_phone_check', sql`${t.phone} is null or ${t.phone} ~ '^\\+91[0-9]{10}$'`),
  ],
);

/**
 * Accounts whose address became another account's once addresses were normalized (migration 0016): they keep
 * their old spelling, and the service reports them at start-up for an admin to resolve, rather than merging them.
 */
export const emailCollisions = pgTable('email_collisions', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  email: text('email').notNull(),
  normalizedEmail: text('normalized_email').notNull(),
  collidesWith: uuid('collides_with')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  foundAt: timestamp('found_at', { withTimezone: true }).notNull().defaultNow(),
});

export type UserRow = typeof users.$inferSelect;
export type NewUserRow = typeof users.$inferInsert;
