import { Logger } from '@nestjs/common';

import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { type Client, type PoolClient } from 'pg';
import {
  Database,
  type DatabaseConnection,
  type DatabaseOptions,
  type Db,
  type DbState,
  type PoolStats,
} from './database';
import { APP_ROLE } from '../common/tenancy/mess-scope';
import { installJobQueueSchema, JOB_QUEUE_SCHEMA } from './job-queue-schema';
import { DeadlineClient, destroyConnection, hasPendingQuery, MessPool } from './server-pool';
import { lastMigrationMillis, mayTakeServiceRoles, migrateAs, withClient } from './server-migrations';

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
