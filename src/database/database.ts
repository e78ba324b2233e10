import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { existsSync } from 'node:fs';
import { MESS_SETTING, READER_ROLE } from '../common/tenancy/mess-scope';
import { dirname, join, resolve } from 'node:path';

export type Db = PgDatabase<PgQueryResultHKT>;
/** A transaction handle has the same query surface as the database. */
export type DbOrTx = Db | Parameters<Parameters<Db['transaction']>[0]>[0];

/** Mongoose's numbering, kept for the contract's `dbState`: 0 disconnected, 1 connected, 2 connecting, 3 disconnecting. */
export type DbState = 0 | 1 | 2 | 3;

/** The committed migrations: the nearest `drizzle/` above this file (from src/, dist/ or a bench build alike). */
export const MIGRATIONS_FOLDER = findMigrations(__dirname);

function findMigrations(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const candidate = join(dir, 'drizzle');
    if (existsSync(join(candidate, 'meta', '_journal.json'))) return candidate;
    if (dirname(dir) === dir) return resolve(start, '..', '..', 'drizzle');
  }
}
/** Serialises migrations when several replicas start at once against one server. */
export const MIGRATION_LOCK_KEY = 7_061_993;

export interface DatabaseOptions {
  databaseUrl?: string;
  /** The server without a pooler in between (migrations, LISTEN), when `databaseUrl` is a pooler's. */
  directUrl?: string;
  /**
   * DATABASE_MIGRATION_URL: the login that owns the tables, for the migrations and the job queue's schema, when
   * `databaseUrl`'s login owns nothing (decision 0012). A direct connection, never a pooler in transaction mode.
   */
  migrationUrl?: string;
  /** How statements get their mess: `transaction` behind a pooler in transaction mode (server-pool.ts). */
  poolMode?: 'session' | 'transaction';
  dataDir: string;
  poolMax?: number;
  statementTimeoutMs?: number;
  connectionTimeoutMs?: number;
  /** Client-side deadline of every query (pg's query_timeout); default: the statement timeout + 1 s. */
  queryTimeoutMs?: number;
  /** For the in-memory engine: a dump of an already migrated data directory to start from (tests). */
  template?: Blob;
}

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

export type DatabaseConnection =
  | { kind: 'embedded'; client: PGlite }
  | {
      kind: 'server';
      url: string;
      directUrl: string;
      /**
       * Known after migrate(): another login owns the tables and installed the job queue's schema, so the queue
       * runs as the service's login without migrating or granting (decision 0012).
       */
      separateOwner: boolean;
    };

/** The service's connection to PostgreSQL: the embedded engine (PGlite) or a server through a pg pool. */
export abstract class Database {
  abstract readonly kind: 'embedded' | 'server';
  abstract readonly db: Db;
  abstract state(): DbState;
  abstract migrate(): Promise<void>;
  abstract close(): Promise<void>;
  /** How a second client (the job queue) reaches this same database: the PGlite instance, or the server's URL. */
  abstract connection(): DatabaseConnection;
  /**
   * The connections for the metrics: open ones, idle ones, callers waiting for one, and the most there can be. The
   * embedded engine is a single connection that the process holds open (1 in use, none idle, max 1); callers queue
   * inside PGlite, which does not say how many.
   */
  abstract poolStats(): PoolStats;

  /**
   * Reads across every mess (the university's view, admin lists): `work` runs in a read-only transaction under the
   * role whose policies show every mess's rows; it cannot write.
   */
  acrossMesses<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) => {
      await tx.execute(sql.raw(`set local role ${READER_ROLE}`));
      return work(tx);
    });
  }

  /** Resolves when the database answers `select 1` within `timeoutMs`, rejects otherwise. */
  async ping(timeoutMs: number): Promise<number> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DatabaseTimeoutError(timeoutMs)), timeoutMs);
    });
    try {
      await Promise.race([this.db.execute(sql`select 1`), timeout]);
      return Math.round(performance.now() - started);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** `ping` got no answer in time (as opposed to a refused or broken connection). */
export class DatabaseTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`database did not answer within ${timeoutMs} ms`);
    this.name = 'DatabaseTimeoutError';
  }
}

/**
 * For the rest of the caller's transaction, its statements act in `messId` (creating a mess writes its first
 * configuration there). The setting ends with the transaction; the connection's own mess is unchanged after it.
 */
export async function actInMessWithin(tx: DbOrTx, messId: string): Promise<void> {
  await tx.execute(sql`select set_config(${MESS_SETTING}, ${messId}, true)`);
}
