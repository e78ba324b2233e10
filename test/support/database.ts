import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { SERVER_TEMPLATE_ENV } from './templates';

export interface TestDatabase {
  /** Undefined on the embedded engine (in memory). Through the pooler when TEST_POOLER_URL is set. */
  url?: string;
  /** The same database without the pooler, when `url` is the pooler's (the service migrates and listens here). */
  directUrl?: string;
  drop(): Promise<void>;
}

/**
 * One fresh database per test file: in-memory PGlite by default, or a new database on the PostgreSQL server
 * named by TEST_DATABASE_URL (created here, dropped afterwards). With TEST_POOLER_URL (a pgbouncer in transaction
 * mode in front of that server, e.g. postgres://postgres@127.0.0.1:6432/postgres) the service reaches it through
 * the pooler, in transaction pool mode, and migrates on the direct URL.
 */
export async function freshDatabase(): Promise<TestDatabase> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) return { drop: async () => undefined };
  const name = `mess_e2e_${process.pid}_${randomBytes(4).toString('hex')}`;
  // A copy of the migrated template made by global setup, when there is one (start-up then has nothing to migrate).
  const template = process.env[SERVER_TEMPLATE_ENV];
  await adminQuery(base, `create database "${name}"${template ? ` template "${template}"` : ''}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  const pooler = process.env.TEST_POOLER_URL;
  const pooled = pooler ? new URL(pooler) : undefined;
  if (pooled) pooled.pathname = `/${name}`;
  return {
    url: (pooled ?? url).toString(),
    directUrl: pooled ? url.toString() : undefined,
    drop: () => adminQuery(base, `drop database if exists "${name}" with (force)`),
  };
}

export async function adminQuery(url: string, sql: string): Promise<void> {
  // Against a cluster whose primary is being switched (TEST_RETRY_UNAVAILABLE, see TestApp.request), tried again.
  const retryFor = Number(process.env.TEST_RETRY_UNAVAILABLE ?? 0) * 1000;
  for (const deadline = Date.now() + retryFor; ; await new Promise((r) => setTimeout(r, 500))) {
    try {
      return await adminQueryOnce(url, sql);
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
  }
}

async function adminQueryOnce(url: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: url });
  // A server that ends the connection between statements (a switchover) fails the query; the event is heard here.
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export const usingServer = (): boolean => Boolean(process.env.TEST_DATABASE_URL);

/** The service's settings for a test database: its URL, and behind the pooler the direct URL and the pool mode. */
export function databaseEnv(database: TestDatabase): Record<string, string> {
  if (!database.url) return {};
  if (!database.directUrl) return { DATABASE_URL: database.url };
  return { DATABASE_URL: database.url, DATABASE_DIRECT_URL: database.directUrl, DATABASE_POOL_MODE: 'transaction' };
}
