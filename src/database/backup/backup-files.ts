import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { TableDigests } from './table-digests';

/**
 * A backup of the embedded engine is one file, `mess-backup-<moment>.tar.gz` (PGlite's own dump of its data
 * directory, gzipped), and its manifest beside it, `<file>.json`: the moment, the file's sha256 and every table's
 * digest at that moment. The moment is in the name (UTC, to the millisecond), so names sort by age.
 */
const NAME = /^mess-backup-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z)\.tar\.gz$/;

export const MANIFEST_SUFFIX = '.json';

export interface BackupManifest {
  format: 'mess-embedded-backup/1';
  /** The moment of the snapshot (ISO 8601): every transaction committed before it is in, none after. */
  moment: string;
  file: string;
  bytes: number;
  sha256: string;
  /** The newest migration applied in the backup (`drizzle.__drizzle_migrations`, by creation time). */
  migrations: number;
  /** How long the service's statements waited while the snapshot was taken. */
  pauseMs: number;
  /** Its parts: the checkpoint, the copy of the files. */
  pause: { checkpointMs: number; copyMs: number };
  /** `pg_current_snapshot()` at the moment (`xmin:xmax:running`): a restore must open at the same. */
  transactions: string;
  tables: TableDigests;
  /** Filled once a restore of the file into a scratch directory showed every table equal to `tables`. */
  verified?: { at: string; restoreMs: number };
}

export function backupFileName(moment: Date): string {
  return `mess-backup-${moment.toISOString().replaceAll(':', '-').replace('.', '-')}.tar.gz`;
}

export const manifestPath = (file: string) => `${file}${MANIFEST_SUFFIX}`;

/** The backups in `dir`, newest first (by the moment in their names); files of other names are not touched. */
export async function listBackups(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const names = (await readdir(dir)).filter((name) => NAME.test(name));
  return names
    .sort()
    .reverse()
    .map((name) => join(dir, name));
}

/**
 * Keeps the `keep` newest verified backups of `dir` and removes the older ones (each with its manifest); returns the
 * names it removed. A backup without a verified manifest is removed when a verified one is newer (it failed, or a
 * crash cut it short); a newer one is left alone (it may be the one being verified).
 */
export async function removeOldBackups(dir: string, keep: number): Promise<string[]> {
  const removed: string[] = [];
  let kept = 0;
  for (const file of await listBackups(dir)) {
    const verified = (await readManifest(file).catch(() => undefined))?.verified !== undefined;
    if (verified && kept < keep) kept += 1;
    else if (verified || kept > 0) {
      await rm(file, { force: true });
      await rm(manifestPath(file), { force: true });
      removed.push(basename(file));
    }
  }
  return removed;
}

/** Scratch folders and partial files a backup leaves while it runs (`.snapshot-…`, `.verify-…`, `….partial`). */
const LEFTOVER = /^\.(snapshot|verify)-|\.partial$/;

/**
 * Removes what a backup cut short (a crash, a kill) left in `dir`, once older than `olderThanMs`: a scratch copy is
 * as large as the data, and nothing else would ever remove it. Younger ones may belong to a backup still running.
 */
export async function removeLeftovers(dir: string, olderThanMs: number, now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  for (const name of existsSync(dir) ? await readdir(dir) : []) {
    if (!LEFTOVER.test(name)) continue;
    const path = join(dir, name);
    if (now - (await stat(path)).mtimeMs < olderThanMs) continue;
    await rm(path, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

export async function readManifest(file: string): Promise<BackupManifest> {
  return JSON.parse(await readFile(manifestPath(file), 'utf8')) as BackupManifest;
}

export async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The file is not the one its manifest describes (damaged, truncated, or another file under its name). */
export class BackupChecksumError extends Error {
  constructor(file: string, expected: string, found: string) {
    super(
      `${basename(file)}: its sha256 is ${found}, its manifest says ${expected}: the file is damaged or not the ` +
        'backup it names; nothing was restored',
    );
    this.name = 'BackupChecksumError';
  }
}

/** Reads the manifest beside `file` and checks the file's sha256 against it; throws when they differ. */
export async function checkedManifest(file: string): Promise<BackupManifest> {
  if (!existsSync(manifestPath(file)))
    throw new Error(
      `${basename(file)}: no manifest ${basename(manifestPath(file))} beside it in ${dirname(file)} (it holds ` +
        'the checksum and the table digests a restore is checked against); nothing was restored',
    );
  const manifest = await readManifest(file);
  const found = await sha256OfFile(file);
  if (found !== manifest.sha256) throw new BackupChecksumError(file, manifest.sha256, found);
  return manifest;
}
