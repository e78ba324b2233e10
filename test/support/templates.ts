import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { createHash } from 'node:crypto';
import { existsSync, openAsBlob, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { PgBoss } from 'pg-boss';
import { MIGRATIONS_FOLDER } from '../../src/database/database';
import { QUEUE_SCHEMA } from '../../src/modules/notifications/notification-queue';
import { pgliteQueueDatabase } from '../../src/modules/notifications/pglite-queue-adapter';

/**
 * Migrated template databases shared by every test file of a run (and by later runs while the migrations do not
 * change; the PGlite one also holds the job queue's schema, see queueSchema): starting PGlite runs initdb, which costs 3–30 s of CPU per file on a busy machine, while loading a dump of
 * an already migrated data directory costs about 1 s (the dump is taken after a CHECKPOINT, so a start does not
 * replay the migrations' WAL: that halved it). On the server, `create database … template` copies a migrated
 * database instead of migrating a new one. Both are named by a hash of the committed migrations (and the PGlite
 * version), so a changed migration makes a new template and an old one is never used.
 */
export const PGLITE_TEMPLATE_ENV = 'MESS_TEST_PGLITE_TEMPLATE';
export const SERVER_TEMPLATE_ENV = 'MESS_TEST_SERVER_TEMPLATE';

/** Bumped when the way a template is made changes, so that an older template file is not reused. */
const TEMPLATE_FORMAT = 'checkpointed-16MB-queue-schema-no-templates-1';

function migrationsHash(): string {
  const hash = createHash('sha256').update(TEMPLATE_FORMAT);
  const pgliteVersion = readFileSync(
    join(require.resolve('@electric-sql/pglite'), '..', '..', 'package.json'),
  );
  hash.update(pgliteVersion);
  // The job queue's schema is in the PGlite template too (see queueSchema).
  hash.update(readFileSync(join(require.resolve('pg-boss'), '..', '..', 'package.json')));
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else hash.update(entry.name).update(readFileSync(path));
    }
  };
  walk(MIGRATIONS_FOLDER);
  return hash.digest('hex').slice(0, 16);
}

/** A dump (tar) of a migrated in-memory PGlite, written once under the system's temp folder. Returns its path. */
export async function pgliteTemplate(): Promise<string> {
  const path = join(tmpdir(), `mess-test-pglite-${migrationsHash()}.tar`);
  if (existsSync(path)) return path;
  const client = await PGlite.create();
  try {
    await migratePglite(drizzlePglite({ client }), { migrationsFolder: MIGRATIONS_FOLDER });
    await queueSchema(client);
    // The app's engine never creates a database, so it needs neither template database: without them the dump is
    // 27 MB instead of 42, and a start from it costs ~0.5–0.8 s of CPU less (PGlite unpacks every file of it).
    for (const database of ['template0', 'template1']) {
      await client.exec(`ALTER DATABASE ${database} IS_TEMPLATE false`);
      await client.exec(`DROP DATABASE ${database}`);
    }
    // A start sets up (and touches) every shared buffer: 128 MB by default, which a test file's database never
    // fills; 16 MB halves the start again and is read by every start from the dump.
    await client.exec(`ALTER SYSTEM SET shared_buffers = '16MB'`);
    // Without it every start from the dump replays the WAL of all the migrations (2.4 s of CPU instead of 1.2 s).
    await client.exec('CHECKPOINT');
    const dump = await client.dumpDataDir('none');
    // Written under another name first: a concurrent run never reads half a file.
    const partial = `${path}.${process.pid}.partial`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, path);
  } finally {
    await client.close();
  }
  return path;
}

/**
 * The job queue's own schema (pg-boss's tables and functions), made as the app's first start makes it: the queue's
 * schema name and the embedded engine's adapter (notification-queue.ts). Each start then finds it at its version and
 * leaves it, instead of installing it again (~0.7 s of CPU per start of the app).
 */
async function queueSchema(client: PGlite): Promise<void> {
  const boss = new PgBoss({
    schema: QUEUE_SCHEMA,
    schedule: false,
    migrate: true,
    backend: 'pglite',
    db: pgliteQueueDatabase(client),
  });
  await boss.start();
  await boss.stop({ graceful: false, close: false });
}

/**
 * The migrated template dump for an in-memory engine, when global setup made one. A Blob backed by the file: PGlite
 * reads it once per start, with none of the copies of a Blob made from a Buffer (0.5 s of CPU per file).
 */
export async function loadPgliteTemplate(): Promise<Blob | undefined> {
  const path = process.env[PGLITE_TEMPLATE_ENV];
  if (!path || !existsSync(path)) return undefined;
  return openAsBlob(path);
}

/** Key of the advisory lock that makes concurrent runs (other people on the same server) build a template once. */
const TEMPLATE_LOCK_KEY = 7_061_994;

/** A migrated database on the server to copy from; created once per set of migrations. Returns its name. */
export async function serverTemplate(baseUrl: string): Promise<string> {
  const name = `mess_template_${migrationsHash()}`;
  const admin = new Client({ connectionString: baseUrl });
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    await admin.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK_KEY]);
    const exists = await admin.query('select datistemplate from pg_database where datname = $1', [name]);
    if (exists.rows[0]?.datistemplate) return name;
    // Half made by a run that died: start again.
    if (exists.rowCount) await admin.query(`drop database "${name}" with (force)`);
    await admin.query(`create database "${name}"`);
    const url = new URL(baseUrl);
    url.pathname = `/${name}`;
    const client = new Client({ connectionString: url.toString() });
    client.on('error', () => undefined);
    await client.connect();
    try {
      await migratePg(drizzlePg({ client }), { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await client.end();
    }
    await admin.query(`alter database "${name}" is_template true allow_connections false`);
    return name;
  } finally {
    await admin.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK_KEY]).catch(() => undefined);
    await admin.end();
  }
}
