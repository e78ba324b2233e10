import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { FIRST_MESS_ID } from '../../src/common/tenancy/mess-scope';
import { QUEUE_SCHEMA } from '../../src/modules/notifications/notification-queue';
import { messSetup, TestApp } from '../support/app';
import { notificationsOf } from '../support/notifications';
import { adminQuery, type TestDatabase, usingServer } from '../support/database';

/**
 * Issue 37: the service on a least-privilege database user, set up as docs/operations.md says. A superuser makes
 * the roles of row-level security once per cluster and grants them to a login role that has neither CREATEROLE nor
 * superuser, and a fresh, empty database owned by that role; the service then starts on it (so migrates it from
 * nothing), and serves a mess under row-level security: the admin sets the mess up, a member registers, is approved
 * and logs in, an expense is recorded and listed. Server engine only: the test makes the role itself on the server
 * TEST_DATABASE_URL names (CI's), and drops it and the database afterwards.
 */
const runs = usingServer();
if (!runs) process.stderr.write('least-privilege.e2e-spec: skipped (no TEST_DATABASE_URL)\n');

const MIGRATIONS = (
  JSON.parse(readFileSync(join(__dirname, '..', '..', 'drizzle', 'meta', '_journal.json'), 'utf8')) as {
    entries: unknown[];
  }
).entries.length;

/** What docs/operations.md tells a superuser to run once per cluster (the roles may exist already). */
const CLUSTER_ROLES = `do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'mess_app') then
    begin create role mess_app nologin; exception when duplicate_object or unique_violation then null; end;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'mess_reader') then
    begin create role mess_reader nologin; exception when duplicate_object or unique_violation then null; end;
  end if;
end $$`;

(runs ? describe : describe.skip)('A database owned by a login role without CREATEROLE (issue 37)', () => {
  const base = process.env.TEST_DATABASE_URL!;
  const suffix = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const role = `mess_owner_${suffix}`;
  const name = `mess_least_${suffix}`;
  const password = randomBytes(12).toString('hex');
  let database: TestDatabase;
  let t: TestApp;

  const asSuperuser = async <T>(sql: string, inDatabase = false): Promise<T[]> => {
    const url = new URL(base);
    if (inDatabase) url.pathname = `/${name}`;
    const client = new Client({ connectionString: url.toString() });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return (await client.query(sql)).rows as T[];
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    await adminQuery(base, CLUSTER_ROLES);
    await adminQuery(base, `create role "${role}" login password '${password}' nosuperuser nocreaterole nocreatedb`);
    await adminQuery(base, `grant mess_app, mess_reader to "${role}"`);
    await adminQuery(base, `create database "${name}" owner "${role}"`);
    const url = new URL(base);
    url.username = role;
    url.password = password;
    url.pathname = `/${name}`;
    database = {
      url: url.toString(),
      drop: async () => {
        await adminQuery(base, `drop database if exists "${name}" with (force)`);
        await adminQuery(base, `drop role if exists "${role}"`);
      },
    };
    t = await TestApp.start({ DATABASE_URL: database.url! }, database);
  }, 120_000);
  afterAll(async () => {
    if (t) await t.close();
    else await database?.drop();
  });

  it('is a role that cannot create roles and is no superuser', async () => {
    const [attributes] = await asSuperuser<{ rolsuper: boolean; rolcreaterole: boolean }>(
      `select rolsuper, rolcreaterole from pg_roles where rolname = '${role}'`,
    );
    expect(attributes).toEqual({ rolsuper: false, rolcreaterole: false });
  });

  it('migrates the empty database to the last migration at start, as its owner, and starts the job queue', async () => {
    const [applied] = await asSuperuser<{ n: number }>(
      'select count(*)::int as n from drizzle.__drizzle_migrations',
      true,
    );
    expect(applied.n).toBe(MIGRATIONS);
    const owners = await asSuperuser<{ owner: string }>(
      `select distinct tableowner as owner from pg_tables where schemaname in ('public', '${QUEUE_SCHEMA}')`,
      true,
    );
    expect(owners).toEqual([{ owner: role }]);
    const [queue] = await asSuperuser<{ owner: string }>(
      `select nspowner::regrole::text as owner from pg_namespace where nspname = '${QUEUE_SCHEMA}'`,
      true,
    );
    expect(queue).toEqual({ owner: role });
    expect((await t.get('/health/jobs')).status).toBe(200);
  });

  it('serves a mess under row-level security: set-up, registration, approval, login, an expense recorded, listed and notified', async () => {
    const admin = await t.adminToken();
    const setup = await t.post('/auth/admin/setup', messSetup({ messName: 'Least Privilege Mess' }), { token: admin });
    expect(setup.status).toBe(200);

    const registration = {
      email: 'asha@college.edu',
      password: 'first-password',
      fullName: 'Asha Verma',
      collegeId: 'CS21B042',
      room: 'B-214',
      phone: '+91-9876543210',
    };
    const registered = await t.post('/auth/register', registration);
    expect(registered.status).toBe(201);
    const approved = await t.put(`/users/${registered.body.userId}/approve`, undefined, { token: admin });
    expect(approved.status).toBe(200);
    const login = await t.post('/auth/login', { email: registration.email, password: registration.password });
    expect(login.status).toBe(200);
    expect(login.body.user.mess._id).toBe(FIRST_MESS_ID);
    const member = login.body.token as string;
    const promoted = await t.put(`/users/${registered.body.userId}/role`, { role: 'manager' }, { token: admin });
    expect(promoted.status).toBe(200);

    const expense = { category: 'Groceries', amount: 1250.5, description: 'Rice', date: '2025-03-14' };
    const recorded = await t.post('/expenses', expense, { token: admin });
    expect(recorded.status).toBe(201);
    const listed = await t.get('/expenses?startDate=2025-03-14&endDate=2025-03-14', { token: member });
    expect(listed.status).toBe(200);
    expect(listed.body.expenses).toEqual([expect.objectContaining({ ...expense, _id: recorded.body.expense._id })]);

    // Written in the first mess, under row-level security as mess_app.
    const [rows] = await asSuperuser<{ n: number }>(
      `select count(*)::int as n from expenses where mess_id = '${FIRST_MESS_ID}'`,
      true,
    );
    expect(rows.n).toBe(1);

    // The manager is told of the expense: a notification row and its delivery job, enqueued in one transaction as
    // mess_app in the queue's tables (which the owner's pg-boss made), and the job run by the queue.
    expect(await notificationsOf(t).settle()).toBeGreaterThanOrEqual(1);
    const notified = await t.get('/notifications', { token: member });
    expect(notified.status).toBe(200);
    expect(notified.body.notifications).toEqual([expect.objectContaining({ type: 'EXPENSE_ADDED' })]);
  });
});

(runs ? describe : describe.skip)('A database owner that was not granted the roles (issue 37)', () => {
  const base = process.env.TEST_DATABASE_URL!;
  const suffix = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const role = `mess_owner_${suffix}`;
  const name = `mess_least_${suffix}`;
  const password = randomBytes(12).toString('hex');
  const drop = async () => {
    await adminQuery(base, `drop database if exists "${name}" with (force)`);
    await adminQuery(base, `drop role if exists "${role}"`);
  };
  afterAll(drop);

  it('does not start: the error names the grant a superuser makes, and nothing is migrated', async () => {
    await adminQuery(base, CLUSTER_ROLES);
    await adminQuery(base, `create role "${role}" login password '${password}' nosuperuser nocreaterole nocreatedb`);
    await adminQuery(base, `create database "${name}" owner "${role}"`);
    const url = new URL(base);
    url.username = role;
    url.password = password;
    url.pathname = `/${name}`;
    const database: TestDatabase = { url: url.toString(), drop };
    await expect(TestApp.start({ DATABASE_URL: database.url! }, database)).rejects.toThrow(
      `The database user ${role} is not a member of mess_app and mess_reader, which the service's statements run ` +
        `as: as a superuser, GRANT mess_app, mess_reader TO "${role}"`,
    );
    const inDatabase = new URL(base);
    inDatabase.pathname = `/${name}`;
    const client = new Client({ connectionString: inDatabase.toString() });
    client.on('error', () => undefined);
    await client.connect();
    const migrated: unknown = (await client.query(`select to_regclass('drizzle.__drizzle_migrations') as t`)).rows[0].t;
    await client.end();
    expect(migrated).toBeNull();
  });
});
