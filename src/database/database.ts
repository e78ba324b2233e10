import { PGlite } from '@electric-sql/pglite';
import { Logger } from '@nestjs/common';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Pool } from 'pg';
import { IN_MEMORY } from '../config/app-config';
import * as schema from './schema';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
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
const MIGRATION_LOCK_KEY = 7_061_993;

export interface DatabaseOptions {
  databaseUrl?: string;
  dataDir: string;
  poolMax?: number;
  statementTimeoutMs?: number;
  connectionTimeoutMs?: number;
}

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

export type DatabaseConnection = { kind: 'embedded'; client: PGlite } | { kind: 'server'; url: string };

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

class EmbeddedDatabase extends Database {
  readonly kind = 'embedded' as const;
  readonly db: Db;
  private closed = false;

  constructor(private readonly client: PGlite) {
    super();
    this.db = drizzlePglite({ client, schema }) as unknown as Db;
  }

  state(): DbState {
    return this.closed ? 0 : 1;
  }

  connection(): DatabaseConnection {
    return { kind: 'embedded', client: this.client };
  }

  poolStats(): PoolStats {
    return this.closed
      ? { total: 0, idle: 0, waiting: 0, max: 1 }
      : { total: 1, idle: 0, waiting: 0, max: 1 };
  }

  async migrate(): Promise<void> {
    await migratePglite(this.db as never, { migrationsFolder: MIGRATIONS_FOLDER });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.close();
  }
}

class ServerDatabase extends Database {
  readonly kind = 'server' as const;
  readonly db: Db;
  private closing = false;
  private healthy = true;

  constructor(
    private readonly pool: Pool,
    private readonly url: string,
  ) {
    super();
    this.db = drizzlePg({ client: pool, schema }) as unknown as Db;
    pool.on('error', () => {
      // An idle client lost its connection; the pool replaces it on the next checkout.
      this.healthy = false;
    });
    pool.on('connect', () => {
      this.healthy = true;
    });
  }

  state(): DbState {
    if (this.closing) return 3;
    return this.healthy ? 1 : 2;
  }

  override async ping(timeoutMs: number): Promise<number> {
    try {
      const ms = await super.ping(timeoutMs);
      this.healthy = true;
      return ms;
    } catch (error) {
      this.healthy = false;
      throw error;
    }
  }

  connection(): DatabaseConnection {
    return { kind: 'server', url: this.url };
  }

  poolStats(): PoolStats {
    const pool = this.pool;
    return {
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      max: pool.options.max ?? 10,
    };
  }

  async migrate(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      await migratePg(drizzlePg({ client }), { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
      client.release();
    }
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    await this.pool.end();
  }
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const logger = new Logger('Database');
  if (options.databaseUrl) {
    const pool = new Pool({
      connectionString: options.databaseUrl,
      max: options.poolMax ?? 10,
      connectionTimeoutMillis: options.connectionTimeoutMs ?? 1_500,
      statement_timeout: options.statementTimeoutMs ?? 10_000,
      idleTimeoutMillis: 30_000,
      application_name: 'mess',
    });
    logger.log(`Using PostgreSQL server ${redactUrl(options.databaseUrl)}`);
    return new ServerDatabase(pool, options.databaseUrl);
  }
  if (options.dataDir === IN_MEMORY) {
    logger.log('Using the embedded database in memory (nothing is kept after exit)');
    return new EmbeddedDatabase(await PGlite.create());
  }
  const dir = resolve(join(options.dataDir, 'pgdata'));
  mkdirSync(dir, { recursive: true });
  logger.log(`Using the embedded database at ${dir}`);
  return new EmbeddedDatabase(await PGlite.create(dir));
}

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}
