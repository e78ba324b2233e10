import { Logger } from '@nestjs/common';

import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { Client, Pool, type PoolClient } from 'pg';
import {
  Database,
  type DatabaseConnection,
  type DatabaseOptions,
  type Db,
  type DbState,
  MIGRATION_LOCK_KEY,
  MIGRATIONS_FOLDER,
  type PoolStats,
} from './database';
import { MessSession } from './mess-session';

const sessions = new WeakMap<PoolClient, MessSession>();

function sessionOf(client: PoolClient): MessSession {
  let session = sessions.get(client);
  if (!session) sessions.set(client, (session = new MessSession()));
  return session;
}

/**
 * A pg pool whose clients run the service's statements as its role, in the running code's mess: a checked-out
 * client is pointed at that mess first, with one statement only when it was last used for another (so a deployment
 * with one mess pays nothing per request). Drizzle runs plain statements through `query` and transactions through
 * `connect`, and both pass here; a transaction's statements run in the mess it began in.
 */
class MessPool extends Pool {
  /** False until the migrations have run: before them the service's role may not exist yet. */
  sealed = false;

  override connect(): Promise<PoolClient>;
  override connect(callback: Parameters<Pool['connect']>[0]): void;
  override connect(callback?: Parameters<Pool['connect']>[0]): Promise<PoolClient> | void {
    if (callback) return super.connect(callback);
    return super.connect().then((client) => this.arrive(client, 'app'));
  }

  /** A client as the connecting user (migrations). */
  connectAsOwner(): Promise<PoolClient> {
    return super.connect().then((client) => this.arrive(client, 'owner'));
  }

  override query(...args: unknown[]): never {
    if (typeof args[args.length - 1] === 'function') throw new Error('MessPool.query takes no callback');
    return this.connect().then(async (client) => {
      try {
        const result = await (client.query as (...a: unknown[]) => Promise<unknown>)(...args);
        client.release();
        return result;
      } catch (error) {
        // As pg's own pool.query does: a client whose statement failed is not reused.
        client.release(error as Error);
        throw error;
      }
    }) as never;
  }

  private async arrive(client: PoolClient, want: 'app' | 'owner'): Promise<PoolClient> {
    if (!this.sealed) return client;
    const session = sessionOf(client);
    const statement = want === 'app' ? session.toCurrentMess() : session.toOwner();
    if (statement === null) return client;
    try {
      await client.query(statement);
      return client;
    } catch (error) {
      session.forget();
      client.release(error as Error);
      throw error;
    }
  }
}

class ServerDatabase extends Database {
  readonly kind = 'server' as const;
  readonly db: Db;
  private closing = false;
  private healthy = true;

  constructor(
    private readonly pool: MessPool,
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
    const client = await this.pool.connectAsOwner();
    try {
      await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      await migratePg(drizzlePg({ client }), { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
      client.release();
    }
    this.pool.sealed = true;
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

/** A pool on the PostgreSQL server of `options.databaseUrl`. */
export function openServerDatabase(options: DatabaseOptions & { databaseUrl: string }): Database {
  const logger = new Logger('Database');
  const statementTimeoutMs = options.statementTimeoutMs ?? 10_000;
  const pool = new MessPool({
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

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}
