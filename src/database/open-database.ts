import type { Database, DatabaseOptions } from './database';
import { openEmbeddedDatabase } from './embedded-database';
import { openServerDatabase } from './server-database';

/** The PostgreSQL server when `databaseUrl` is set, else the embedded engine (PGlite) in this process. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.databaseUrl
    ? openServerDatabase({ ...options, databaseUrl: options.databaseUrl })
    : openEmbeddedDatabase(options);
}
