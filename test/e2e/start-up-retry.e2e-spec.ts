import { Client } from 'pg';
import { TestApp } from '../support/app';
import { freshDatabase, usingServer, type TestDatabase } from '../support/database';
import { captureLogs } from '../support/logs';
import { TcpProxy } from '../support/tcp-proxy';

/**
 * The service starting while its database cannot serve: a primary in the middle of a switchover (connections
 * refused, then a standby that refuses writes with 25006) must delay the start-up, not fail it, for up to
 * DB_START_RETRY_SECONDS; past that the start-up fails with the database's own error. Server engine only.
 */
const run = usingServer() ? it : it.skip;
const AWAY_MS = 2_000;

describe('Starting while the database cannot serve', () => {
  const logs = captureLogs();
  const opened: TestDatabase[] = [];
  const proxies: TcpProxy[] = [];
  afterAll(async () => {
    logs.restore();
    await Promise.all(proxies.map((p) => p.close()));
    await Promise.all(opened.map((d) => d.drop()));
  });

  /** A fresh database behind a proxy that refuses every connection until `forward()`. */
  async function refusedDatabase(): Promise<{ db: TestDatabase; proxy: TcpProxy; url: string }> {
    const db = direct(await freshDatabase());
    opened.push(db);
    const target = new URL(db.url!);
    const proxy = await new TcpProxy(target.hostname, Number(target.port || 5432)).start();
    proxies.push(proxy);
    const port = proxy.port;
    await proxy.refuse();
    proxy.port = port;
    const via = new URL(db.url!);
    via.hostname = '127.0.0.1';
    via.port = String(port);
    return { db, proxy, url: via.toString() };
  }

  /** The database itself, never the pooler: what is refused or read-only here is the server. */
  const direct = (db: TestDatabase): TestDatabase => ({ url: db.directUrl ?? db.url, drop: () => db.drop() });

  const retries = () =>
    logs.lines.filter((l) => l.level === 'warn' && /the database cannot serve now/.test(l.message));

  run(
    'waits while connections are refused and serves once the database is back',
    async () => {
      logs.clear();
      const { db, proxy, url } = await refusedDatabase();
      const starting = TestApp.start({ DATABASE_URL: url }, { ...db, url });
      await new Promise((done) => setTimeout(done, AWAY_MS));
      await proxy.forward();
      const t = await starting;
      try {
        expect((await t.get('/ready')).status).toBe(200);
        expect((await t.get('/meals', { token: await t.adminToken() })).status).toBe(200);
        const told = retries();
        expect(told.length).toBeGreaterThan(0);
        expect(told[0].message).toMatch(/^Opening the database|^Migrating the database/);
        expect(told[0].message).toMatch(/ECONNREFUSED/);
      } finally {
        await t.close();
      }
    },
    60_000,
  );

  run(
    'waits while the database refuses writes (a standby, 25006) and serves once it takes them',
    async () => {
      logs.clear();
      const db = direct(await freshDatabase());
      opened.push(db);
      const name = new URL(db.url!).pathname.slice(1);
      const owner = new Client({ connectionString: process.env.TEST_DATABASE_URL });
      owner.on('error', () => undefined);
      await owner.connect();
      try {
        await owner.query(`alter database "${name}" set default_transaction_read_only = on`);
        const starting = TestApp.start({}, db);
        await new Promise((done) => setTimeout(done, AWAY_MS));
        await owner.query(`alter database "${name}" reset default_transaction_read_only`);
        // Sessions opened while it was read-only keep the setting: ended, as a switchover ends them.
        await owner.query(
          `select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`,
          [name],
        );
        const t = await starting;
        try {
          const admin = await t.adminToken();
          const created = await t.post(
            '/expenses',
            { category: 'Gas', amount: 100, description: 'Cylinder', date: '2025-03-14' },
            { token: admin },
          );
          expect([201, 400, 403]).toContain(created.status);
          expect(created.status).not.toBe(500);
          expect(retries().map((l) => l.message).join('\n')).toMatch(/25006|57P01|terminat/);
        } finally {
          await t.close();
        }
      } finally {
        await owner.end();
      }
    },
    60_000,
  );

  run(
    'fails the start-up with the database error once DB_START_RETRY_SECONDS has passed',
    async () => {
      logs.clear();
      const { db, url } = await refusedDatabase();
      const started = Date.now();
      await expect(
        TestApp.start({ DATABASE_URL: url, DB_START_RETRY_SECONDS: '1' }, { ...db, url }),
      ).rejects.toThrow(/ECONNREFUSED|connect/);
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(retries().length).toBeGreaterThan(0);
    },
    60_000,
  );
});
