import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
// Only for the foreign keys (a member's meals go with the member; a closure keeps its row if the actor goes). The
// sole use of another module's schema here: queries get names through UsersService.namesOf, never by a join.
import { users } from '../users/users.schema';
import { messIdColumn, sealedByMess } from '../messes/messes.schema';

const monthCheck = (column: unknown) => sql`${column} ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'`;

/**
 * The month's spending, kept by a database trigger on `expenses` in the transaction of every write (migration 0035):
 * never rebuilt on the write or the read path. `BillingService.rebuild` is the repair tool.
 */
export const monthTotals = pgTable(
  'month_totals',
  {
    messId: messIdColumn(),
    month: text('month').notNull(),
    totalPaise: bigint('total_paise', { mode: 'number' }).notNull(),
  },
  (t) => [
    ...sealedByMess('month_totals'),
    primaryKey({ columns: [t.messId, t.month] }),
    check('month_totals_month_check', monthCheck(t.month)),
  ],
);

/**
 * The month's marks per member and meal type, kept by a database trigger on `attendance` in the transaction of every
 * mark written, changed or deleted (migration 0035): `meals` the present marks, `absent` the absent ones and
 * `presentDays` the days of the month with a present mark as bits (bit d − 1 for day d), from which the slots served
 * follow. Rows whose counts fell to zero stay, with zeros; readers skip them.
 */
export const monthMemberMeals = pgTable(
  'month_member_meals',
  {
    messId: messIdColumn(),
    month: text('month').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    mealType: text('meal_type').notNull(),
    meals: integer('meals').notNull(),
    absent: integer('absent').notNull(),
    presentDays: integer('present_days').notNull(),
  },
  (t) => [
    ...sealedByMess('month_member_meals'),
    primaryKey({ columns: [t.messId, t.month, t.userId, t.mealType] }),
    index('month_member_meals_user_idx').on(t.userId, t.month),
    // The university's view reads one month of every mess: without it, a scan of every month's rows.
    index('month_member_meals_month_idx').on(t.month, t.messId),
  ],
);

/**
 * A closed month: its bill is frozen here, and a database trigger refuses any write to that month's expenses or
 * attendance (SQLSTATE MS409) until an admin reopens it.
 */
export const monthClosures = pgTable(
  'month_closures',
  {
    messId: messIdColumn(),
    month: text('month').notNull(),
    closedAt: timestamp('closed_at', { withTimezone: true }).notNull().defaultNow(),
    closedBy: uuid('closed_by').references(() => users.id, { onDelete: 'set null' }),
    /** Both methods' bills as they stood at closing. */
    bill: jsonb('bill').notNull(),
  },
  (t) => [
    ...sealedByMess('month_closures'),
    primaryKey({ columns: [t.messId, t.month] }),
    check('month_closures_month_check', monthCheck(t.month)),
  ],
);

/** Every close and reopen: who and when. */
export const monthCloseLog = pgTable(
  'month_close_log',
  {
    id: serial('id').primaryKey(),
    messId: messIdColumn(),
    month: text('month').notNull(),
    action: text('action').$type<'close' | 'reopen'>().notNull(),
    actorId: uuid('actor_id').references(() => users.id, { onDelete: 'set null' }),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    ...sealedByMess('month_close_log'),
    index('month_close_log_mess_month_idx').on(t.messId, t.month, t.at),
    check('month_close_log_action_check', sql`${t.action} in ('close', 'reopen')`),
  ],
);
