import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { SERVER_TEMPLATE_ENV } from './templates';

export interface TestDatabase {
  /** Undefined on the embedded engine (in memory). */
  url?: string;
  drop(): Promise<void>;
}

/**
 * One fresh database per test file: in-memory PGlite by default, or a new database on the PostgreSQL server
 * named by TEST_DATABASE_URL (created here, dropped afterwards).
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
  return {
    url: url.toString(),
    drop: () => adminQuery(base, `drop database if exists "${name}" with (force)`),
  };
}

export async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export const usingServer = (): boolean => Boolean(process.env.TEST_DATABASE_URL);
