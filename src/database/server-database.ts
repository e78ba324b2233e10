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
import { APP_ROLE, READER_ROLE } from '../common/tenancy/mess-scope';
import { InMessQuery } from './in-mess-query';
import { MessSession, messSettingsQuery, messSettingsSql } from './mess-session';
import { installJobQueueSchema, JOB_QUEUE_SCHEMA } from './job-queue-schema';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What each pooled connection's session is set to (session pool mode). */
const sessions = new WeakMap<PoolClient, MessSession>();

function sessionOf(client: PoolClient): MessSession {
  let session = sessions.get(client);
  if (!session) sessions.set(client, (session = new MessSession()));
  return session;
}

/**
 * How the service's statements get their mess on the server (`DATABASE_POOL_MODE`). Every transaction sets the role
 * and `app.mess` with `set local` as it begins (one round trip with its `begin`), in both modes; they differ in the
 * statements outside a transaction and in names:
 * - `session` (a direct connection, or a pooler in session mode): the connection's session holds the role and the
 *   mess it was last used for, and a statement for another mess is sent with `set_config(…)` of both in front of it
 *   before one Sync (one round trip, InMessQuery), so a deployment with one mess pays nothing per statement; the
 *   service's named statements, and the settings statement, are prepared once per connection;
 * - `transaction` (a pooler in transaction mode, where consecutive transactions of one client may run on different
 *   server connections): every statement is sent with `set_config(…, true)` in front of it, and none is prepared
 *   under a name (the pooler's next transaction may be on a server connection that never saw it).
 */
export type PoolMode = 'session' | 'transaction';

/**
 * A pg pool whose clients run the service's statements as its role, in the running code's mess (or none). Drizzle
 * runs plain statements through `query` and transactions through `connect`, and both pass here; a transaction's
 * statements run in the mess it began in.
 */
class MessPool extends Pool {
  /** False until the migrations have run: before them the service's role may not exist yet. */
  sealed = false;

  constructor(
    config: ConstructorParameters<typeof Pool>[0],
    readonly mode: PoolMode,
  ) {
    super(config);
  }

  override connect(): Promise<PoolClient>;
  override connect(callback: Parameters<Pool['connect']>[0]): void;
  override connect(callback?: Parameters<Pool['connect']>[0]): Promise<PoolClient> | void {
    if (callback) return super.connect(callback);
    return super.connect().then((client) => this.arrive(client));
  }

  override query(...args: unknown[]): never {
    if (typeof args[args.length - 1] === 'function') throw new Error('MessPool.query takes no callback');
    const sealed = this.sealed;
    return this.connect().then(async (client) => {
      try {
        const result = !sealed
          ? await (client.query as (...a: unknown[]) => Promise<unknown>)(...args)
          : this.mode === 'transaction'
            ? await inItsMess(client, args, { local: true, named: false })
            : sessionOf(client).movesToCurrentMess()
              ? await inItsMess(client, args, { local: false, named: true })
              : await (client.query as (...a: unknown[]) => Promise<unknown>)(...args);
        client.release();
        return result;
      } catch (error) {
        // As pg's own pool.query does: a client whose statement failed is not reused (its implicit transaction, and
        // with it a session setting sent in front of the statement, was rolled back; and what pg remembers of the
        // connection's named statements may be wrong): failures are rare and a fresh connection is cheap.
        client.release(error as Error);
        throw error;
      }
    }) as never;
  }

  private arrive(client: PoolClient): PoolClient {
    (client as MessClient).scoped = this.sealed ? this.mode : undefined;
    return client;
  }
}

/**
 * A statement outside a transaction: sent with its mess's settings in front of it, in one round trip (InMessQuery),
 * for its own implicit transaction (`local`) or for the session; it and the settings keep their names when `named`.
 */
function inItsMess(
  client: PoolClient,
  args: unknown[],
  options: { local: boolean; named: boolean },
): Promise<unknown> {
  const [first, values] = args;
  // Drizzle passes (config, values); pg also takes (text, values) and a config holding its values.
  const { name, ...config } =
    typeof first === 'string' ? { text: first } : (first as { name?: string; text: string; values?: unknown[] });
  if (Array.isArray(values)) config.values = values;
  return new Promise((resolve, reject) => {
    const statement = options.named ? { ...config, name } : config;
    const query = new InMessQuery(statement, messSettingsQuery(options), (error, result) => {
      if (!error) return resolve(result);
      if (dropsTheConnection(error)) destroyConnection(client);
      reject(error);
    });
    (client.query as (q: unknown) => unknown)(query);
  });
}

class ServerDatabase extends Database {
  readonly kind = 'server' as const;
  readonly db: Db;
  private closing = false;
  private healthy = true;
  /** Set by migrate(): the tables' owner is another login than the pool's (decision 0012). */
  private separateOwner = false;
  private readonly logger = new Logger('Database');

  constructor(
    private readonly pool: MessPool,
    private readonly url: string,
    /** Where migrations and LISTEN go: a direct connection when the pool's URL is a pooler's. */
    private readonly directUrl: string,
    /** DATABASE_MIGRATION_URL: the owner of the tables, when the pool's login is another that owns nothing. */
    private readonly migrationUrl: string | undefined,
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
    return { kind: 'server', url: this.url, directUrl: this.directUrl, separateOwner: this.separateOwner };
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

  /**
   * Brings the database to this version before the service's statements run, as whoever owns the tables:
   * - DATABASE_MIGRATION_URL set: its login (the owner) migrates, installs the job queue's schema and grants what
   *   the service's login needs to read; the service's login is then checked (decision 0012);
   * - else DATABASE_URL's login migrates when it may create in the database (today's single login, which owns it);
   * - else that login owns nothing and cannot migrate: the owner ran `npm run db:migrate` with
   *   DATABASE_MIGRATION_URL beforehand (a Kubernetes init container), and the start only checks that it did.
   */
  async migrate(): Promise<void> {
    if (this.migrationUrl) {
      await migrateAs(this.migrationUrl, { owner: 'separate' });
      await installJobQueueSchema(this.migrationUrl);
      await this.checkServiceLogin();
      this.separateOwner = true;
    } else if (await this.mayCreateInDatabase()) {
      await migrateAs(this.directUrl, { owner: 'self' });
    } else {
      await this.checkMigrated();
      await this.checkServiceLogin();
      this.separateOwner = true;
    }
    this.pool.sealed = true;
  }

  private async mayCreateInDatabase(): Promise<boolean> {
    return withClient(this.directUrl, async (client) => {
      const { rows } = await client.query<{ may: boolean }>(
        `select has_database_privilege(current_database(), 'CREATE') as may`,
      );
      return rows[0].may;
    });
  }

  /** Fails the start, naming the command, when the owner has not migrated the database to this version. */
  private async checkMigrated(): Promise<void> {
    const wanted = lastMigrationMillis();
    await withClient(this.directUrl, async (client) => {
      const { rows: who } = await client.query<{ user: string }>('select current_user as user');
      const user = who[0].user;
      let last: number;
      try {
        const { rows } = await client.query<{ last: string | null }>(
          'select max(created_at)::text as last from drizzle.__drizzle_migrations',
        );
        last = Number(rows[0].last ?? 0);
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code !== '42P01' && code !== '3F000' && code !== '42501') throw error;
        last = -1;
      }
      if (last >= wanted) return;
      throw new Error(
        `The database is not migrated to this version${last < 0 ? ' (its migrations cannot be read)' : ''}, and ` +
          `DATABASE_URL's login ${user} may not create in it, so cannot migrate it: run ` +
          'npm run db:migrate with DATABASE_MIGRATION_URL set to the owner of the tables, or set ' +
          'DATABASE_MIGRATION_URL for the service (docs/operations.md, "A login that owns nothing")',
      );
    });
  }

  /**
   * The service's login when another owns the tables: it must be a member of both roles (its statements `SET
   * ROLE`) and inherit mess_app's privileges (the job queue runs as the login itself, on tables granted to
   * mess_app). A login that owns tables or is a superuser can still switch the history guards off: said, not refused.
   */
  private async checkServiceLogin(): Promise<void> {
    await withClient(this.directUrl, async (client) => {
      await mayTakeServiceRoles(client);
      const { rows } = await client.query<{ user: string; inherits: boolean; owns: boolean; superuser: boolean }>(
        `select current_user as user, pg_has_role(current_user, $1, 'USAGE') as inherits,
                exists (select 1 from pg_class c join pg_namespace n on n.oid = c.relnamespace
                         where c.relowner = r.oid and n.nspname in ('public', 'drizzle', $2)) as owns,
                r.rolsuper as superuser
           from pg_roles r where r.rolname = current_user`,
        [APP_ROLE, JOB_QUEUE_SCHEMA],
      );
      const login = rows[0];
      if (!login.inherits) {
        throw new Error(
          `The database user ${login.user} does not inherit the privileges of ${APP_ROLE}, which the job queue ` +
            `runs with: as a superuser, GRANT ${APP_ROLE} TO "${login.user}" WITH INHERIT TRUE (PostgreSQL 16 and ` +
            `later), or ALTER ROLE "${login.user}" INHERIT`,
        );
      }
      if (login.owns || login.superuser) {
        this.logger.warn(
          `DATABASE_URL's login ${login.user} ${login.superuser ? 'is a superuser' : 'owns tables'}: it can switch ` +
            "the ledger's and the audit trail's guards off; give the service a login that owns nothing (decision 0012)",
        );
      }
    });
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
 * SQLSTATEs after which the connection is not worth keeping: 25006, a write refused because the server at its other
 * end is a standby (the primary was demoted under it in a switchover) or the session began while the database took
 * no writes; 57P01-57P03, the server shutting down or not yet up. The pool opens a fresh connection instead, which
 * after a failover reaches the new primary; kept, it would refuse every write of every request it served.
 */
const STALE_SERVER_STATES = new Set(['25006', '57P01', '57P02', '57P03']);

/** Whether a query's failure leaves its connection unfit for the next statement (see DeadlineClient). */
function dropsTheConnection(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return error.message === QUERY_READ_TIMEOUT || (typeof code === 'string' && STALE_SERVER_STATES.has(code));
}

/**
 * A pg client whose connection is destroyed as soon as one of its queries misses the client-side deadline
 * (`query_timeout`). node-postgres only fails that query: the connection keeps waiting for its answer, every later
 * query on it (a transaction's ROLLBACK, the next request after the pool handed it out again) waits its own full
 * deadline, and a pool of such clients stays stuck after the network comes back. Destroyed, its pending queries
 * fail at once and the pool replaces it. So is a connection whose server turned out to be a standby or going away.
 */
class DeadlineClient extends Client {
  /**
   * Set by the pool at each checkout once the migrations have run: the service's transactions set their mess as they
   * begin, and in transaction pool mode no statement keeps a name.
   */
  scoped: PoolMode | undefined;

  constructor(config?: ConstructorParameters<typeof Client>[0]) {
    super(config);
    // A connection lost while the client is checked out fails its queries (and so the request, with 503); the
    // 'error' event it also emits then has no pool listener, and unheard it would crash the process.
    this.on('error', () => undefined);
  }

  override query(...args: unknown[]): never {
    const begins = isBegin(args[0]);
    if (this.scoped) args[0] = inItsTransaction(args[0], this.scoped);
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      (result as Promise<unknown>).catch((error: unknown) => {
        if (dropsTheConnection(error)) destroyConnection(this);
        if (begins) this.giveBackAfterFailedBegin(error);
      });
    }
    return result as never;
  }

  /**
   * Drizzle's transaction takes its client from the pool and sends `begin` before its try/finally, so a `begin` that
   * fails (the connection lost in a failover as it left the pool) never releases it: after a few such faults no
   * request would get a connection again. Given back here as broken, the pool drops it and opens another.
   */
  private giveBackAfterFailedBegin(error: unknown): void {
    const release = (this as unknown as { release?: (error?: Error) => void }).release;
    try {
      release?.call(this, error instanceof Error ? error : new Error(String(error)));
    } catch {
      // Not checked out of a pool, or already given back: nothing held.
    }
  }
}

type MessClient = PoolClient & { scoped?: PoolMode };

const BEGIN = /^\s*begin\b/i;

/** Whether a statement (text or config) opens a transaction. */
function isBegin(query: unknown): boolean {
  const text = typeof query === 'string' ? query : (query as { text?: unknown } | null)?.text;
  return typeof text === 'string' && BEGIN.test(text);
}

/**
 * A statement of the service's on a checked-out client (a transaction's): a `begin` followed by the settings of the
 * running code's mess (one round trip), and in transaction pool mode no name (no prepared statement outlives its
 * transaction there).
 */
function inItsTransaction(query: unknown, mode: PoolMode): unknown {
  if (typeof query === 'string') return BEGIN.test(query) ? `${query}; ${messSettingsSql(true)}` : query;
  if (!query || typeof query !== 'object' || typeof (query as { submit?: unknown }).submit === 'function') return query;
  const config = query as { name?: string; text?: string; values?: unknown[] };
  if (typeof config.text === 'string' && BEGIN.test(config.text) && !config.values?.length)
    return { ...config, name: undefined, text: `${config.text}; ${messSettingsSql(true)}`, values: undefined };
  if (mode === 'session' || config.name === undefined) return query;
  const { name: _name, ...unnamed } = config;
  return unnamed;
}

/**
 * Runs the migrations in one transaction that holds a transaction-level advisory lock (replicas starting at once
 * wait for each other), on a connection of its own to `url`: no session state is used, so it works through a pooler
 * in transaction mode too. Drizzle's own begin and commit become a savepoint inside. The login that also serves
 * (`owner: 'self'`) must be able to take the service's roles; a separate owner grants the roles read access to the
 * migrations' record instead, so the service's login can check the database is migrated.
 */
async function migrateAs(url: string, options: { owner: 'self' | 'separate' }): Promise<void> {
  await withClient(url, async (client) => {
    try {
      await client.query('begin');
      await client.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      await migratePg(drizzlePg({ client: insideOneTransaction(client) }), { migrationsFolder: MIGRATIONS_FOLDER });
      if (options.owner === 'self') await mayTakeServiceRoles(client);
      else
        await client.query(
          `grant usage on schema drizzle to ${READER_ROLE}; grant select on all tables in schema drizzle to ${READER_ROLE}`,
        );
      await client.query('commit');
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    }
  });
}

/** A connection of its own to `url` for `work`, ended afterwards. */
async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url, application_name: 'mess-migrate' });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The `when` of the last committed migration: drizzle records it as the migration's `created_at`. */
function lastMigrationMillis(): number {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as {
    entries: { when: number }[];
  };
  return Math.max(...journal.entries.map((entry) => entry.when));
}

/**
 * Fails the start when the connecting user is no member of the roles the service's statements run under: every
 * request would fail at its `set role` instead. Migration 0017 grants them only where it may (a user with
 * CREATEROLE); a least-privilege user is granted them by a superuser beforehand (decision 0009).
 */
async function mayTakeServiceRoles(client: Client): Promise<void> {
  const { rows } = await client.query<{ role: string; user: string }>(
    'select r as role, current_user as user from unnest($1::text[]) r where not pg_has_role(current_user, r, $2)',
    [[APP_ROLE, READER_ROLE], 'MEMBER'],
  );
  if (rows.length === 0) return;
  const user = rows[0].user;
  throw new Error(
    `The database user ${user} is not a member of ${rows.map((row) => row.role).join(' and ')}, which the ` +
      `service's statements run as: as a superuser, GRANT ${APP_ROLE}, ${READER_ROLE} TO "${user}" ` +
      '(docs/operations.md, "A least-privilege database user")',
  );
}

/**
 * A client as drizzle's migrator sees it inside a transaction the caller holds: its begin, commit and rollback
 * become a savepoint's, so the caller's transaction (and its advisory lock) spans the whole migration.
 */
function insideOneTransaction(client: Client): Client {
  const words: Record<string, string> = {
    begin: 'savepoint migrate',
    commit: 'release savepoint migrate',
    rollback: 'rollback to savepoint migrate',
  };
  return new Proxy(client, {
    get(target, property) {
      if (property === 'query') {
        return (query: unknown, ...rest: unknown[]) => {
          const text = typeof query === 'string' ? query : (query as { text?: string } | null)?.text;
          const word = text === undefined ? undefined : words[text.trim().toLowerCase()];
          return (target.query as (...a: unknown[]) => unknown)(word ?? query, ...rest);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
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
  const mode = options.poolMode ?? 'session';
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
  }, mode);
  // A client handed back with a query still outstanding (its deadline passed inside a transaction) is never
  // reused: ended here, the pool drops it instead of keeping it idle.
  pool.on('release', (error: Error | undefined, client: PoolClient) => {
    if (!error && hasPendingQuery(client)) {
      destroyConnection(client);
      void (client as unknown as Client).end().catch(() => undefined);
    }
  });
  logger.log(
    `Using PostgreSQL server ${redactUrl(options.databaseUrl)} (pool mode ${mode}` +
      (options.directUrl
        ? `; ${options.migrationUrl ? 'LISTEN' : 'migrations and LISTEN'} on ${redactUrl(options.directUrl)}`
        : '') +
      (options.migrationUrl ? `; migrations as ${redactUrl(options.migrationUrl)})` : ')'),
  );
  return new ServerDatabase(
    pool,
    options.databaseUrl,
    options.directUrl ?? options.databaseUrl,
    options.migrationUrl,
  );
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
