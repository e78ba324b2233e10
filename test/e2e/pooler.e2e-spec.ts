import { Client } from 'pg';
import { messSetup, TestApp } from '../support/app';
import { freshDatabase, type TestDatabase, usingServer } from '../support/database';
import { PGBOUNCER, type Pgbouncer, startPgbouncer } from '../support/pgbouncer';

/**
 * Issue 32, "behind a pooler": the service behind Debian's pgbouncer in transaction mode with a pool of ONE server
 * connection, so every transaction of every request runs on the same server session, one after another. Each sets
 * its mess as it begins (`set local`), so a request of mess A never runs under mess B's setting left by the one
 * before it, and no statement is prepared under a name (the next transaction would not find it). Server engine
 * only; CI installs pgbouncer.
 */
const runs = usingServer() && PGBOUNCER !== undefined;
if (!runs) {
  process.stderr.write(
    `pooler.e2e-spec: skipped (${usingServer() ? 'no pgbouncer: apt-get install pgbouncer' : 'no TEST_DATABASE_URL'})\n`,
  );
}

const today = () => new Date().toISOString().slice(0, 10);
type Tokens = Record<'a' | 'b', string>;

/** Two messes' staff and students sharing one server connection, writes and reads at once: each sees its own mess. */
async function eachInItsMess(t: TestApp, managers: Tokens, students: Tokens): Promise<void> {
  // Writes of both messes at once: each lands in its own mess.
  const writes = await Promise.all(
    Array.from({ length: 24 }, (_, i) => {
      const mess = i % 2 ? 'b' : 'a';
      return t
        .post(
          '/expenses',
          { category: 'Gas', amount: 100 + i, description: `${mess}-${i}`, date: today() },
          { token: managers[mess] },
        )
        .then((res) => ({ mess, res }));
    }),
  );
  for (const { res } of writes) expect(res.status).toBe(201);
  // Reads of both messes at once, interleaved with the writes' follow-ups: each sees its own mess only.
  const reads = await Promise.all(
    Array.from({ length: 40 }, (_, i) => {
      const mess = i % 2 ? 'b' : 'a';
      return t.get('/expenses?limit=100', { token: managers[mess] }).then((res) => ({ mess, res }));
    }),
  );
  for (const { mess, res } of reads) {
    expect(res.status).toBe(200);
    const descriptions = res.body.expenses.map((e: { description: string }) => e.description);
    expect(descriptions).toHaveLength(12);
    for (const description of descriptions) expect(description.startsWith(`${mess}-`)).toBe(true);
  }
  // An authenticated read (the token holder's statement, named on a direct connection) and a student's own
  // records, many at once: no "prepared statement … does not exist" and no other mess's rows.
  const own = await Promise.all(
    Array.from({ length: 20 }, (_, i) => t.get('/attendance', { token: students[i % 2 ? 'b' : 'a'] })),
  );
  for (const res of own) expect(res.status).toBe(200);
}

/** An app with two messes (Alpha, Beta), a manager and a student in each. */
async function twoMesses(t: TestApp): Promise<{ managers: Tokens; students: Tokens }> {
  const admin = await t.adminToken();
  expect(
    (await t.post('/auth/admin/setup', messSetup({ messName: 'Alpha Mess' }), { token: admin })).status,
  ).toBe(200);
  const beta = await t.post('/messes', messSetup({ messName: 'Beta Mess', slug: 'beta' }), { token: admin });
  expect(beta.status).toBe(201);
  const b = { messId: beta.body.mess._id };
  return {
    managers: { a: (await t.member('manager')).token, b: (await t.member('manager', b)).token },
    students: { a: (await t.member('student')).token, b: (await t.member('student', b)).token },
  };
}

(runs ? describe : describe.skip)('Behind pgbouncer in transaction mode, one server connection', () => {
  let database: TestDatabase;
  let pooler: Pgbouncer;
  let t: TestApp;
  let staff: { managers: Tokens; students: Tokens };

  beforeAll(async () => {
    database = await freshDatabase();
    const direct = database.directUrl ?? database.url!;
    pooler = await startPgbouncer(direct, { poolSize: 1 });
    t = await TestApp.start(
      {
        DATABASE_URL: pooler.via(direct),
        DATABASE_DIRECT_URL: direct,
        DATABASE_POOL_MODE: 'transaction',
        DB_POOL_MAX: '6',
        // The pool's connections wait in pgbouncer for the one server connection.
        DB_CONNECTION_TIMEOUT_MS: '20000',
      },
      { ...database, url: pooler.via(direct), directUrl: direct },
    );
    staff = await twoMesses(t);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await pooler?.stop();
    await database?.drop();
  });

  it('keeps each request in its own mess while they share the one server connection', () =>
    eachInItsMess(t, staff.managers, staff.students));

  it('ran it all on one server connection', async () => {
    const admin = new Client({
      connectionString: pooler.via(database.directUrl ?? database.url!).replace(/\/[^/]*$/, '/pgbouncer'),
    });
    await admin.connect();
    try {
      const pools = await admin.query('show pools');
      const ours = pools.rows.filter(
        (row: { database: string }) => row.database === new URL(database.url!).pathname.slice(1),
      );
      expect(ours.length).toBeGreaterThan(0);
      const server = ours.reduce(
        (sum: number, row: Record<string, string>) =>
          sum +
          Number(row.sv_active) +
          Number(row.sv_idle) +
          Number(row.sv_used) +
          Number(row.sv_tested) +
          Number(row.sv_login),
        0,
      );
      expect(server).toBe(1);
    } finally {
      await admin.end();
    }
  });
});

(usingServer() ? describe : describe.skip)('Directly in session pool mode, a pool of one connection', () => {
  let database: TestDatabase;
  let t: TestApp;
  let staff: { managers: Tokens; students: Tokens };

  beforeAll(async () => {
    database = await freshDatabase();
    t = await TestApp.start({ DB_POOL_MAX: '1', DB_CONNECTION_TIMEOUT_MS: '20000' }, database);
    staff = await twoMesses(t);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await database?.drop();
  });

  it('keeps each request in its own mess while they share the one connection', () =>
    eachInItsMess(t, staff.managers, staff.students));
});
