import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { MIGRATIONS_FOLDER } from '../../src/database/database';
import { TestApp } from './app';
import { adminQuery } from './database';

/** The committed migrations up to and including `lastTag`, in a folder of their own (drizzle reads the journal). */
export function migrationsUpTo(lastTag: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'mess-migrations-'));
  cpSync(MIGRATIONS_FOLDER, dir, { recursive: true });
  const journalPath = join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
  const last = journal.entries.findIndex((e) => e.tag === lastTag);
  if (last < 0) throw new Error(`no migration ${lastTag}`);
  journal.entries = journal.entries.slice(0, last + 1);
  writeFileSync(journalPath, JSON.stringify(journal));
  return dir;
}

/** Runs SQL on the upgraded database as its owner, after the service has closed: the rows. */
export type OwnerQuery = <T = Record<string, unknown>>(sql: string) => Promise<T[]>;

/**
 * An upgrade in place, as a deployment does it: a database migrated up to `lastTag` (an older release) and filled
 * with `fill` (SQL), then the current service started on it, which migrates it to the last migration. `use` runs
 * with the started service; `inspect` then reads the database directly once the service has closed. On the
 * embedded engine a data directory of its own; on the server (`serverUrl`, the suite's TEST_DATABASE_URL) a fresh
 * database, dropped after.
 */
export async function upgradeInPlace(options: {
  lastTag: string;
  fill: string;
  serverUrl?: string;
  use?: (t: TestApp) => Promise<void>;
  inspect?: (query: OwnerQuery) => Promise<void>;
}): Promise<void> {
  const older = migrationsUpTo(options.lastTag);
  try {
    if (options.serverUrl) await onServer(options.serverUrl, older, options);
    else await embedded(older, options);
  } finally {
    rmSync(older, { recursive: true, force: true });
  }
}

async function embedded(
  older: string,
  { fill, use, inspect }: Parameters<typeof upgradeInPlace>[0],
): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mess-upgrade-'));
  try {
    const before = new PGlite(join(dataDir, 'pgdata')); // where the service keeps its data (database.ts)
    await migratePglite(drizzlePglite({ client: before }), { migrationsFolder: older });
    await before.exec(fill);
    await before.close();
    // The embedded engine, also in the server suite.
    const t = await TestApp.start({ DATA_DIR: dataDir }, { drop: async () => undefined });
    try {
      await use?.(t);
    } finally {
      await t.close();
    }
    if (inspect) {
      const after = new PGlite(join(dataDir, 'pgdata'));
      try {
        await inspect(async <T>(sql: string) => (await after.query<T>(sql)).rows);
      } finally {
        await after.close();
      }
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function onServer(
  base: string,
  older: string,
  { fill, use, inspect }: Parameters<typeof upgradeInPlace>[0],
): Promise<void> {
  const name = `mess_upgrade_${process.pid}_${Date.now()}`;
  const url = new URL(base);
  url.pathname = `/${name}`;
  await adminQuery(base, `create database "${name}"`);
  try {
    const client = new Client({ connectionString: url.toString() });
    await client.connect();
    await migratePg(drizzlePg({ client }), { migrationsFolder: older });
    await client.query(fill);
    await client.end();
    const t = await TestApp.start(
      { DATABASE_URL: url.toString() },
      { url: url.toString(), drop: async () => {} },
    );
    try {
      await use?.(t);
    } finally {
      await t.close();
    }
    if (inspect) {
      const check = new Client({ connectionString: url.toString() });
      await check.connect();
      try {
        await inspect(async <T>(sql: string) => (await check.query(sql)).rows as T[]);
      } finally {
        await check.end();
      }
    }
  } finally {
    await adminQuery(base, `drop database if exists "${name}" with (force)`);
  }
}
