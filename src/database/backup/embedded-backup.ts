import type { PGlite } from '@electric-sql/pglite';
import { constants, createWriteStream, existsSync, readdirSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { EmbeddedDatabase } from '../embedded-database';
import { openEmbeddedDatabase } from '../embedded-database';
import {
  type BackupManifest,
  backupFileName,
  checkedManifest,
  manifestPath,
  removeLeftovers,
  removeOldBackups,
  sha256OfFile,
} from './backup-files';
import { DataDirectoryHeldError, controlSocketPath, serviceRunsOn } from './control-socket';
import { differingTables, type TableDigests } from './table-digests';
import { type Restored, restoreInto, restoreOffThread } from './restored-copy';
import { tarDirectory } from './tar';

export interface BackupReport {
  path: string;
  manifest: BackupManifest;
  /** Older backups removed by the retention (BACKUP_KEEP). */
  removed: string[];
  /** From the start of the pause to the verified file: snapshot, compression, checksum, test restore. */
  totalMs: number;
}

/** A backup takes minutes at most; a scratch folder older than this was left by one that was cut short. */
const LEFTOVER_AGE_MS = 6 * 3600_000;

/** The table the migrations' record lives in: how many ran tells a backup's schema version. */
const MIGRATIONS_TABLE = 'drizzle.__drizzle_migrations';

/**
 * A consistent backup of the embedded database, taken by the process that holds it (the running service, or the
 * CLI when none runs), into `backupDir`:
 *
 * 1. While the engine's one session is held (every statement of the service waits; measured as `pauseMs`): a
 *    checkpoint, the transactions' snapshot (its next transaction id), and a copy of the data directory's files into a scratch folder beside
 *    it, on its disk (the kernel copies; nothing passes through this process's memory). Of the write-ahead log only the
 *    segments from the checkpoint on are copied: the older ones are recycled files a restore never reads. Nothing
 *    writes meanwhile, so the copy is the moment.
 * 2. After the session is released (writers go on): the copy is archived (tar), gzipped to `<name>.partial`,
 *    renamed to its name, and its sha256 taken from the file on disk.
 * 3. Verified: the file is restored into a scratch directory under `backupDir` and opened; it must open at the
 *    moment's next transaction id (no committed transaction lost, none added), and the digest of every table's rows (as restored) goes into the manifest, against which
 *    each later restore is compared. Only then is the manifest written beside the file, and the backups beyond the
 *    `keep` newest removed. A backup that fails is removed and this throws.
 *
 * Why not PGlite's `dumpDataDir()`: it builds the whole archive in memory (the service peaked at 7 GB of RSS for a
 * 1.1 GB data directory) and the writers waited for all of it (6 s for that directory, against ~1 s for the copy).
 * Why the table digests come from the restored copy and not from the live database during the pause: hashing every
 * row costs ~7 µs a row on the 2-core machine (15 s for a year of 2,000 members), and even counting them ~1 s for
 * that year, all of it a pause for the writers; the transaction id costs nothing. The restored copy is the moment
 * itself (the files of a database that nothing changed while they were copied), which its transaction id checks.
 */
export async function takeEmbeddedBackup(
  database: EmbeddedDatabase,
  options: { backupDir: string; keep: number },
): Promise<BackupReport> {
  const started = performance.now();
  const pgdata = database.pgdata;
  if (!pgdata) throw new Error('the embedded database is in memory (DATA_DIR=memory://): nothing to back up');
  const backupDir = resolve(options.backupDir);
  await mkdir(backupDir, { recursive: true });
  // Beside pgdata/, on its disk: the copy the writers wait for is then a copy within one file system (or a clone),
  // however slow the disk BACKUP_DIR is on.
  const scratch = await mkdtemp(join(dirname(pgdata), '.snapshot-'));
  const copy = join(scratch, 'pgdata');
  let snapshot: {
    moment: Date;
    transactions: string;
    pauseMs: number;
    pause: BackupManifest['pause'];
  };
  let path: string;
  try {
    snapshot = await database.holdSession(async (client) => {
      const held = performance.now();
      const moment = new Date();
      await client.exec('checkpoint');
      const checkpointed = performance.now();
      const { wal, transactions } = await positionNow(client);
      await cp(pgdata, copy, {
        recursive: true,
        // A clone where the file system has them (btrfs, XFS): the pause then costs no copying at all.
        mode: constants.COPYFILE_FICLONE,
        filter: (source) => belongsInBackup(pgdata, source, wal),
      });
      const copied = performance.now();
      return {
        moment,
        transactions,
        pauseMs: Math.round(copied - held),
        pause: { checkpointMs: Math.round(checkpointed - held), copyMs: Math.round(copied - checkpointed) },
      };
    });
    path = join(backupDir, backupFileName(snapshot.moment));
    const partial = `${path}.partial`;
    try {
      await pipeline(Readable.from(tarDirectory(copy)), createGzip(), createWriteStream(partial));
      await rename(partial, path);
    } finally {
      await rm(partial, { force: true });
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  try {
    const sha256 = await sha256OfFile(path);
    const verifyStarted = performance.now();
    const check = await mkdtemp(join(backupDir, '.verify-'));
    let restored: Restored;
    try {
      restored = await restoreOffThread(path, join(check, 'pgdata'));
    } finally {
      await rm(check, { recursive: true, force: true });
    }
    assertSameMoment(path, snapshot.transactions, restored.transactions);
    const { tables } = restored;
    const manifest: BackupManifest = {
      format: 'mess-embedded-backup/1',
      moment: snapshot.moment.toISOString(),
      file: basename(path),
      bytes: (await stat(path)).size,
      sha256,
      migrations: tables[MIGRATIONS_TABLE]?.rows ?? 0,
      pauseMs: snapshot.pauseMs,
      pause: snapshot.pause,
      transactions: snapshot.transactions,
      tables,
      verified: { at: new Date().toISOString(), restoreMs: Math.round(performance.now() - verifyStarted) },
    };
    await writeManifest(path, manifest);
    const removed = [
      ...(await removeOldBackups(backupDir, options.keep)),
      ...(await removeLeftovers(backupDir, LEFTOVER_AGE_MS)),
      ...(await removeLeftovers(dirname(pgdata), LEFTOVER_AGE_MS)),
    ];
    return { path, manifest, removed, totalMs: Math.round(performance.now() - started) };
  } catch (error) {
    await rm(path, { force: true });
    await rm(manifestPath(path), { force: true });
    throw error;
  }
}

/**
 * Where the database is: the write-ahead log's segments a restore replays (from the last checkpoint's redo point to
 * the one written now), and the transactions' snapshot (`xmin:xmax:running`), whose `xmax` is the next transaction id:
 * a copy that lost a committed transaction would reopen with a lower one.
 */
async function positionNow(
  client: PGlite,
): Promise<{ wal: { from: string; to: string }; transactions: string }> {
  const { rows } = await client.query<{ from: string; to: string; transactions: string }>(
    `select (select redo_wal_file from pg_control_checkpoint()) as "from",
            pg_walfile_name(pg_current_wal_insert_lsn()) as "to", pg_current_snapshot()::text as transactions`,
  );
  const [{ from, to, transactions }] = rows;
  return { wal: { from, to }, transactions };
}

const WAL_SEGMENT = /^[0-9A-F]{24}$/;

/**
 * What of the data directory a backup holds: everything but the lock file of the process that runs it and the WAL
 * segments outside [from, to] (recycled files, or ones the checkpoint made unnecessary).
 */
function belongsInBackup(pgdata: string, source: string, wal: { from: string; to: string }): boolean {
  const path = relative(pgdata, source).split(sep);
  if (path.length === 1 && (path[0] === 'postmaster.pid' || path[0] === 'postmaster.opts')) return false;
  if (path.length === 2 && path[0] === 'pg_wal' && WAL_SEGMENT.test(path[1]))
    return path[1] >= wal.from && path[1] <= wal.to;
  return true;
}

/** Written aside and renamed: a manifest is whole or absent, never half written. */
async function writeManifest(path: string, manifest: BackupManifest): Promise<void> {
  const target = manifestPath(path);
  await writeFile(`${target}.partial`, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(`${target}.partial`, target);
}

/** A restored copy differs from its backup's moment. */
export class BackupMismatchError extends Error {
  constructor(file: string, differing: ReturnType<typeof differingTables>) {
    super(
      `${basename(file)}: restored, ${differing.length} table(s) differ from the backup's moment: ` +
        differing
          .map(
            ({ table, expected, found }) =>
              `${table} (rows ${expected?.rows ?? '-'} → ${found?.rows ?? '-'})`,
          )
          .join(', '),
    );
    this.name = 'BackupMismatchError';
  }
}

/** The restored copy does not end at the moment's transaction: it is not the moment. */
function assertSameMoment(file: string, expected: string, found: string): void {
  if (expected !== found)
    throw new Error(
      `${basename(file)}: restored, it opens at the transactions ${found}, the backup's moment was at ${expected}`,
    );
}

function assertSameTables(file: string, expected: TableDigests, found: TableDigests): void {
  const differing = differingTables(expected, found);
  if (differing.length) throw new BackupMismatchError(file, differing);
}

export interface RestoreReport {
  pgdata: string;
  moment: string;
  tables: number;
  rows: number;
  /** Where the data directory that was there went (`--force`). */
  replaced?: string;
  /** Migrations the backup had, and after the restored directory was opened as the service opens it. */
  migrations: { before: number; after: number };
  restoreMs: number;
}

/** `<dataDir>/pgdata` holds something (a database, or anything else a restore would mix with). */
export class DataDirectoryInUseError extends Error {
  constructor(pgdata: string) {
    super(
      `${pgdata} is not empty: a restore would replace it. Pass --force to move it aside (to pgdata.replaced-<time>, ` +
        'kept until you remove it) and restore, or name another directory with --data-dir',
    );
    this.name = 'DataDirectoryInUseError';
  }
}

/**
 * Restores the backup `file` into `<dataDir>/pgdata`: its checksum checked first (a damaged file restores
 * nothing), an existing non-empty directory refused unless `force` (then moved aside, not deleted), every table
 * compared with the manifest's digests, and the result opened as the service opens it (the migrations of this
 * version applied, when the backup is older). The service must not be running on `dataDir`.
 */
export async function restoreEmbeddedBackup(options: {
  file: string;
  dataDir: string;
  force?: boolean;
}): Promise<RestoreReport> {
  const started = performance.now();
  const file = resolve(options.file);
  const manifest = await checkedManifest(file);
  if (await serviceRunsOn(options.dataDir))
    throw new DataDirectoryHeldError(controlSocketPath(options.dataDir));
  const pgdata = resolve(options.dataDir, 'pgdata');
  let replaced: string | undefined;
  if (existsSync(pgdata) && readdirSync(pgdata).length > 0) {
    if (!options.force) throw new DataDirectoryInUseError(pgdata);
    replaced = `${pgdata}.replaced-${new Date().toISOString().replaceAll(':', '-')}`;
    await rename(pgdata, replaced);
  }
  const { tables: restored, transactions } = await restoreInto(file, pgdata);
  assertSameMoment(file, manifest.transactions, transactions);
  assertSameTables(file, manifest.tables, restored);
  const database = await openEmbeddedDatabase({ dataDir: options.dataDir });
  let after: number;
  try {
    await database.migrate();
    after = await database.holdSession(async (client) => {
      const { rows } = await client.query<{ n: number }>(
        `select count(*)::int as n from ${MIGRATIONS_TABLE}`,
      );
      return rows[0].n;
    });
  } finally {
    await database.close();
  }
  return {
    pgdata,
    moment: manifest.moment,
    tables: Object.keys(restored).length,
    rows: Object.values(restored).reduce((sum, t) => sum + t.rows, 0),
    replaced,
    migrations: { before: manifest.migrations, after },
    restoreMs: Math.round(performance.now() - started),
  };
}
