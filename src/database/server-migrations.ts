import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { Client } from 'pg';
import { MIGRATION_LOCK_KEY, MIGRATIONS_FOLDER } from './database';
import { APP_ROLE, READER_ROLE } from '../common/tenancy/mess-scope';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Runs the migrations in one transaction that holds a transaction-level advisory lock (replicas starting at once
 * wait for each other), on a connection of its own to `url`: no session state is used, so it works through a pooler
 * in transaction mode too. Drizzle's own begin and commit become a savepoint inside. The login that also serves
 * (`owner: 'self'`) must be able to take the service's roles; a separate owner grants the roles read access to the
 * migrations' record instead, so the service's login can check the database is migrated.
 */
export async function migrateAs(url: string, options: { owner: 'self' | 'separate' }): Promise<void> {
  await withClient(url, async (client) => {
    try {
      await client.query('begin');
      await client.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      await migratePg(drizzlePg({ client: insideOneTransaction(client) }), { migrationsFolder: MIGRATIONS_FOLDER });
      if (options.owner === 'self') await mayTakeServiceRoles(client);
      else
        await client.query(
          `grant usage on schema drizzle to ${READER_ROLE}; grant select on all tables in schema drizzle to ${READER_ROLE}`,
        );
      await client.query('commit');
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    }
  });
}

/** A connection of its own to `url` for `work`, ended afterwards. */
export async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url, application_name: 'mess-migrate' });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The `when` of the last committed migration: drizzle records it as the migration's `created_at`. */
export function lastMigrationMillis(): number {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as {
    entries: { when: number }[];
  };
  return Math.max(...journal.entries.map((entry) => entry.when));
}

/**
 * Fails the start when the connecting user is no member of the roles the service's statements run under: every
 * request would fail at its `set role` instead. Migration 0017 grants them only where it may (a user with
 * CREATEROLE); a least-privilege user is granted them by a superuser beforehand (decision 0009).
 */
export async function mayTakeServiceRoles(client: Client): Promise<void> {
  const { rows } = await client.query<{ role: string; user: string }>(
    'select r as role, current_user as user from unnest($1::text[]) r where not pg_has_role(current_user, r, $2)',
    [[APP_ROLE, READER_ROLE], 'MEMBER'],
  );
  if (rows.length === 0) return;
  const user = rows[0].user;
  throw new Error(
    `The database user ${user} is not a member of ${rows.map((row) => row.role).join(' and ')}, which the ` +
      `service's statements run as: as a superuser, GRANT ${APP_ROLE}, ${READER_ROLE} TO "${user}" ` +
      '(docs/operations.md, "A least-privilege database user")',
  );
}

/**
 * A client as drizzle's migrator sees it inside a transaction the caller holds: its begin, commit and rollback
 * become a savepoint's, so the caller's transaction (and its advisory lock) spans the whole migration.
 */
function insideOneTransaction(client: Client): Client {
  const words: Record<string, string> = {
    begin: 'savepoint migrate',
    commit: 'release savepoint migrate',
    rollback: 'rollback to savepoint migrate',
  };
  return new Proxy(client, {
    get(target, property) {
      if (property === 'query') {
        return (query: unknown, ...rest: unknown[]) => {
          const text = typeof query === 'string' ? query : (query as { text?: string } | null)?.text;
          const word = text === undefined ? undefined : words[text.trim().toLowerCase()];
          return (target.query as (...a: unknown[]) => unknown)(word ?? query, ...rest);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
