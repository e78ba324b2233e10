import { sql } from 'drizzle-orm';
import { FIRST_MESS_ID, MESS_SETTING } from '../common/tenancy/mess-scope';
import type { Database, DatabaseOptions } from './database';
import { openEmbeddedDatabase } from './embedded-database';
import { openServerDatabase } from './server-database';

/** The PostgreSQL server when `databaseUrl` is set, else the embedded engine (PGlite) in this process. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.databaseUrl
    ? openServerDatabase({ ...options, databaseUrl: options.databaseUrl })
    : openEmbeddedDatabase(options);
}

/**
 * A migrated database opened for a bulk load as the owner of the tables, in the first mess: `seedDemo` truncates,
 * switches triggers off and drops indexes, which the service's role (row-level security, one mess) may not. The
 * migrations run on one handle; the load gets a second one that never ran them, so its statements stay the
 * connecting user's (the handle switches to the service's role only after migrating), with `app.mess` (the mess
 * column's default) set on its session.
 */
export async function openForBulkLoad(options: { databaseUrl?: string; dataDir: string }): Promise<Database> {
  const migrator = await openDatabase({ ...options, statementTimeoutMs: 600_000 });
  await migrator.migrate();
  if (!options.databaseUrl) {
    // The embedded engine has one session, which the owner's handle keeps: the setting holds for the load.
    await migrator.close();
    const owner = await openDatabase({ ...options, statementTimeoutMs: 600_000 });
    await owner.db.execute(sql.raw(`set ${MESS_SETTING} = '${FIRST_MESS_ID}'`));
    return owner;
  }
  await migrator.close();
  const url = new URL(options.databaseUrl);
  url.searchParams.set('options', `-c ${MESS_SETTING}=${FIRST_MESS_ID}`);
  return openDatabase({ ...options, databaseUrl: url.toString(), statementTimeoutMs: 600_000 });
}
