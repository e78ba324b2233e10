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

export { ROLES, USER_STATUSES, type Role, type UserStatus } from '../../common/auth/roles';

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** Stored trimmed and lower-cased; unique. */
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
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('users_email_unique').on(t.email),
    uniqueIndex('users_idp_id_unique').on(t.idpId),
    index('users_status_role_idx').on(t.status, t.role),
    index('users_created_at_idx').on(t.createdAt),
    check('users_role_check', sql`${t.role} in ('student', 'manager', 'treasurer', 'admin')`),
    check('users_status_check', sql`${t.status} in ('pending', 'approved', 'rejected')`),
    check('users_phone_check', sql`${t.phone} is null or ${t.phone} ~ '^\\+91[0-9]{10}$'`),
  ],
);

export type UserRow = typeof users.$inferSelect;
export type NewUserRow = typeof users.$inferInsert;
