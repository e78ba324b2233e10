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
import { Client, Pool, type PoolClient } from 'pg';
import { IN_MEMORY } from '../config/app-config';

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
const MIGRATION_LOCK_KEY = 7_061_993;

export interface DatabaseOptions {
  databaseUrl?: string;
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

/** Resolves after the event loop has gone round once: timers, and the poll phase that accepts and reads sockets. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

type Queryable = Pick<PGlite, 'query' | 'exec'>;

/**
 * The PGlite client as drizzle sees it, giving the event loop a turn before each statement (in a transaction too).
 *
 * PGlite runs PostgreSQL in this thread and answers through promises that settle at once, so without this a request's
 * statements, and those of every request waiting behind it, run one after the other in a single turn of the loop.
 * A turn then lasts as long as all of them, and the loop accepts new connections only between turns: under 200
 * connections the service accepted about three a second while it served the connections it had, and clients whose
 * connection waited in the listen queue got no answer for 10 s (as a plain Node server that works 3 ms per request
 * does). With a turn per statement, the loop accepts and reads between statements; a request then waits in the
 * admission queue, which answers 503 past its deadline, instead of unaccepted.
 */
function takingTurns<T extends Queryable>(client: T): T {
  return new Proxy(client, {
    get(target, property) {
      if (property === 'query' || property === 'exec') {
        const run = (target[property] as (...args: unknown[]) => Promise<unknown>).bind(target);
        return async (...args: unknown[]) => {
          await nextTurn();
          return run(...args);
        };
      }
      if (property === 'transaction') {
        const transaction = (target as unknown as PGlite).transaction.bind(target);
        return <R>(work: (tx: Queryable) => Promise<R>) => transaction((tx) => work(takingTurns(tx)));
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

class EmbeddedDatabase extends Database {
  readonly kind = 'embedded' as const;
  readonly db: Db;
  private closed = false;

  constructor(private readonly client: PGlite) {
    super();
    this.db = drizzlePglite({ client: takingTurns(client) }) as unknown as Db;
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
    this.db = drizzlePg({ client: pool }) as unknown as Db;
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

/** The message node-postgres gives a query that outlived `query_timeout`. */
const QUERY_READ_TIMEOUT = 'Query read timeout';

/**
 * A pg client whose connection is destroyed as soon as one of its queries misses the client-side deadline
 * (`query_timeout`). node-postgres only fails that query: the connection keeps waiting for its answer, every later
 * query on it (a transaction's ROLLBACK, the next request after the pool handed it out again) waits its own full
 * deadline, and a pool of such clients stays stuck after the network comes back. Destroyed, its pending queries
 * fail at once and the pool replaces it.
 */
class DeadlineClient extends Client {
  constructor(config?: ConstructorParameters<typeof Client>[0]) {
    super(config);
    // A connection lost while the client is checked out fails its queries (and so the request, with 503); the
    // 'error' event it also emits then has no pool listener, and unheard it would crash the process.
    this.on('error', () => undefined);
  }

  override query(...args: unknown[]): never {
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      (result as Promise<unknown>).catch((error: unknown) => {
        if (error instanceof Error && error.message === QUERY_READ_TIMEOUT) destroyConnection(this);
      });
    }
    return result as never;
  }
}

/** node-postgres' socket of a client (not in its typings). */
function destroyConnection(client: Client | PoolClient): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

/** Whether a query is still outstanding on a client (node-postgres internals, guarded). */
function hasPendingQuery(client: PoolClient): boolean {
  const internals = client as unknown as { _getActiveQuery?: () => unknown; _queryQueue?: unknown[] };
  return Boolean(internals._getActiveQuery?.() ?? internals._queryQueue?.length);
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const logger = new Logger('Database');
  if (options.databaseUrl) {
    const statementTimeoutMs = options.statementTimeoutMs ?? 10_000;
    const pool = new Pool({
      connectionString: options.databaseUrl,
      max: options.poolMax ?? 10,
      // Also the longest wait for a free client of a full pool: both end as 503 Database unavailable.
      connectionTimeoutMillis: options.connectionTimeoutMs ?? 1_500,
      statement_timeout: statementTimeoutMs,
      // The server enforces statement_timeout, so it cannot fire when the server is silent (a network partition
      // leaves the connection open and nothing comes back): this deadline is the client's own.
      query_timeout: options.queryTimeoutMs ?? statementTimeoutMs + 1_000,
      idleTimeoutMillis: 30_000,
      application_name: 'mess',
      Client: DeadlineClient,
    });
    // A client handed back with a query still outstanding (its deadline passed inside a transaction) is never
    // reused: ended here, the pool drops it instead of keeping it idle.
    pool.on('release', (error: Error | undefined, client: PoolClient) => {
      if (!error && hasPendingQuery(client)) {
        destroyConnection(client);
        void (client as unknown as Client).end().catch(() => undefined);
      }
    });
    logger.log(`Using PostgreSQL server ${redactUrl(options.databaseUrl)}`);
    return new ServerDatabase(pool, options.databaseUrl);
  }
  if (options.dataDir === IN_MEMORY) {
    logger.log('Using the embedded database in memory (nothing is kept after exit)');
    return new EmbeddedDatabase(
      await PGlite.create(options.template ? { loadDataDir: options.template } : undefined),
    );
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
