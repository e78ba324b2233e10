import { sql } from 'drizzle-orm';
import {
  check,
  integer,
  jsonb,
  pgPolicy,
  pgRole,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { APP_ROLE, FIRST_MESS_ID, MESS_SETTING, READER_ROLE } from '../../common/tenancy/mess-scope';

/** Extension 2.2: where members pay the mess by UPI (a virtual payment address and the name it shows). */
export interface MessUpi {
  vpa: string;
  payeeName: string;
}

/**
 * What a request may set as a slug: 2–40 of a-z, 0-9 and -, not starting or ending with -. The table's
 * `messes_slug_check` holds the same rule for new rows (migration 0026 adds it `not valid`: a slug of one character
 * stored before stays readable).
 */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,38}[a-z0-9]$/;
export const CAPACITY_MAX = 100_000;

/**
 * The messes of the deployment. A mess's configuration (name, contacts, meal times…) is its `mess_config` row; this
 * row is what exists before it is configured: the first mess exists from the first start, unconfigured.
 */
export const messes = pgTable(
  'messes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    slug: text('slug').notNull(),
    /** Approved members at most; null: no limit. */
    capacity: integer('capacity'),
    upi: jsonb('upi').$type<MessUpi>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('messes_slug_unique').on(t.slug),
    check('messes_slug_check', sql`${t.slug} ~ '^[a-z0-9][a-z0-9-]{0,38}[a-z0-9]$'`),
    check('messes_capacity_check', sql`${t.capacity} is null or ${t.capacity} between 1 and 100000`),
  ],
);

export type MessRow = typeof messes.$inferSelect;

/**
 * The mess a record belongs to: by default the mess the statement runs for (the connection's `app.mess`, which the
 * database layer sets), so no insert names it, and row-level security refuses a row of another mess.
 */
export const messIdColumn = () =>
  uuid('mess_id')
    .notNull()
    .default(sql.raw(`current_setting('${MESS_SETTING}')::uuid`))
    .references(() => messes.id);

/** The roles of row-level security (created by migration 0017, or by hand for a least-privilege database user). */
const appRole = pgRole(APP_ROLE).existing();
const readerRole = pgRole(READER_ROLE).existing();
const inTheMess = sql.raw(`mess_id = current_setting('${MESS_SETTING}')::uuid`);

/**
 * The policies of every table with a `messIdColumn()`, declared with the table so that a generated migration keeps
 * them: the service's role sees and writes the rows of the mess its statement runs in (the setting read with no
 * fallback: outside a mess the statement fails), the reader role reads every mess. Row-level security is also forced
 * on these tables (migration 0025), and a test on a freshly migrated database checks both for every table with a
 * `mess_id` (test/e2e/tenancy-catalogue.e2e-spec.ts).
 */
export const sealedByMess = (table: string) => [
  pgPolicy(`${table}_one_mess`, { as: 'permissive', for: 'all', to: appRole, using: inTheMess, withCheck: inTheMess }),
  pgPolicy(`${table}_every_mess`, { as: 'permissive', for: 'select', to: readerRole, using: sql`true` }),
];

/** A column that names a mess but is not scoped by it (users, configuration): the first mess by default. */
export const homeMessColumn = () =>
  uuid('mess_id')
    .notNull()
    .default(sql.raw(`'${FIRST_MESS_ID}'::uuid`))
    .references(() => messes.id);
