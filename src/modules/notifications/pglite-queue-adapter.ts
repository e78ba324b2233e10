import type { PGlite } from '@electric-sql/pglite';

/** pg-boss's database interface (`IDatabase`), restated so this file does not load the ESM package for a type. */
export interface QueueDatabase {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

const STARTS_TRANSACTION = /^\s*BEGIN\b/i;

/**
 * Lets pg-boss share the embedded engine's single connection with the service.
 *
 * Parameterised statements are single statements and autocommit, so they go through `query()`. Parameterless text
 * can be a multi-statement script, which needs `exec()`. A script that opens its own transaction (pg-boss's
 * `BEGIN; …; COMMIT;` installs, migrations and locked maintenance) runs inside PGlite's `transaction()`, which
 * holds the connection for the whole script and rolls back within that hold when a statement fails. Run through a
 * bare `exec()` instead, a failure would leave the shared connection in an aborted transaction until a later
 * ROLLBACK, and any query of the service that slipped in between would fail. pg-boss's own `fromPglite` adapter
 * rolls back that later way, hence this one. PGlite queues everything else behind an open transaction, so a
 * Drizzle transaction of the service never sees a pg-boss statement inside it.
 */
export function pgliteQueueDatabase(client: PGlite): QueueDatabase {
  const rowsOf = (results: { rows?: unknown[] }[]) => ({ rows: results.flatMap((r) => r.rows ?? []) });
  return {
    async executeSql(text: string, values?: unknown[]) {
      if (values?.length) return client.query(text, values);
      if (STARTS_TRANSACTION.test(text)) {
        // The script's own BEGIN/COMMIT nest inside PGlite's (a warning, not an error).
        return client.transaction(async (tx) => rowsOf(await tx.exec(text)));
      }
      return rowsOf(await client.exec(text));
    },
  };
}
