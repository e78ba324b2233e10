import { PGlite } from '@electric-sql/pglite';
import { createReadStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { createGunzip } from 'node:zlib';
import { digestTables, type TableDigests } from './table-digests';
import { untarInto } from './tar';

/** A backup as restored: what its verification and every restore compare with the moment it was taken at. */
export interface Restored {
  tables: TableDigests;
  /** `pg_current_snapshot()` as the restored copy opens: the moment's, when it is the moment. */
  transactions: string;
}

/**
 * Unpacks the backup `file` into the empty directory `pgdata`, opens it (PostgreSQL replays the log from the
 * checkpoint, as after a crash), and returns where it opens and the digest of every table as restored, before
 * anything (a migration, the service) has touched it.
 */
export async function restoreInto(file: string, pgdata: string): Promise<Restored> {
  const unzip = createGunzip();
  const source = createReadStream(file);
  source.once('error', (error) => unzip.destroy(error));
  await untarInto(source.pipe(unzip), pgdata);
  const restored = await PGlite.create(pgdata);
  try {
    const { rows } = await restored.query<{ t: string }>('select pg_current_snapshot()::text as t');
    return { transactions: rows[0].t, tables: await digestTables(restored) };
  } finally {
    await restored.close();
  }
}

/** The compiled worker beside this file (absent when this runs from the TypeScript sources, in the tests). */
const WORKER = join(__dirname, 'restored-copy.worker.js');

/**
 * `restoreInto` on a worker thread. PGlite runs each statement synchronously on the thread that calls it: digesting
 * the year's 1.7 M attendance marks held the service's event loop for 7 s (a `GET /api/live` waited that long), so
 * the running service verifies its backups on another thread. From the TypeScript sources it runs on this one.
 */
export function restoreOffThread(file: string, pgdata: string): Promise<Restored> {
  if (!existsSync(WORKER)) return restoreInto(file, pgdata);
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { workerData: { file, pgdata } });
    let answered = false;
    worker.once('message', (answer: { restored?: Restored; error?: string }) => {
      answered = true;
      if (answer.restored) resolve(answer.restored);
      else reject(new Error(answer.error ?? 'the verifying restore failed'));
    });
    worker.once('error', (error) => {
      answered = true;
      reject(error);
    });
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the verifying restore's thread exited (${code}) without an answer`));
    });
  });
}
