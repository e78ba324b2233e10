import { whileUnavailable } from './unavailable';
import { Client } from 'pg';
import type { Database } from '../../src/database/database';

/**
 * Runs `statement` as the connecting user that owns the tables (not the service's role, which row-level security
 * holds to one mess and which may not create functions or triggers): what a test sends to stage a database failure
 * or to show that the database itself refuses something, whoever sends it.
 */
export async function asOwner(database: Database, statement: string): Promise<{ rows: unknown[] }> {
  const connection = database.connection();
  if (connection.kind === 'embedded') return connection.client.query(statement);
  // On a connection of its own, sent again while the database is briefly away (TEST_RETRY_UNAVAILABLE).
  return whileUnavailable(async () => {
    const client = new Client({ connectionString: connection.url });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await client.query(statement);
    } finally {
      await client.end().catch(() => undefined);
    }
  });
}
