import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { APP_ROLE, FIRST_MESS_ID, READER_ROLE } from '../../src/common/tenancy/mess-scope';
import { QUEUE_SCHEMA } from '../../src/modules/notifications/notification-queue';
import { messSetup, TestApp } from '../support/app';
import { notificationsOf } from '../support/notifications';
import { adminQuery, type TestDatabase, usingServer } from '../support/database';
import { PGBOUNCER, type Pgbouncer, startPgbouncer } from '../support/pgbouncer';

/**
 * Issue 45, "a database login that owns nothing" (decision 0012): the tables belong to an owner login that only the
 * migrations use (DATABASE_MIGRATION_URL); the service serves as a runtime login (DATABASE_URL) that owns nothing
 * and holds the roles of row-level security. Set up as docs/operations.md says: a superuser makes both logins, grants
 * them mess_app and mess_reader, and a fresh database owned by the owner. The service migrates with the owner and
 * serves with the runtime login; connected as the runtime login, every way to rewrite the ledger or the audit trail
 * (switch a guard off, alter a table, drop a policy, update, delete, truncate, replace a guard's function, replica
 * mode) is refused by PostgreSQL, also after SET ROLE mess_app and mess_reader. Then the service starts again with
 * the runtime login alone (after `npm run db:migrate` as the owner, as a Kubernetes init container does), and
 * refuses to start on a database the owner never migrated. Server engine only; drops its logins and databases.
 */
const runs = usingServer();
if (!runs) process.stderr.write('runtime-login.e2e-spec: skipped (no TEST_DATABASE_URL)\n');

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

/** Two logins and a database the owner owns, made as docs/operations.md says; `drop` removes all three. */
async function twoLogins(base: string): Promise<{
  owner: string;
  runtime: string;
  name: string;
  ownerUrl: string;
  runtimeUrl: string;
  database: TestDatabase;
}> {
  const suffix = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const owner = `mess_owner_${suffix}`;
  const runtime = `mess_runtime_${suffix}`;
  const name = `mess_login_${suffix}`;
  const password = randomBytes(12).toString('hex');
  await adminQuery(base, CLUSTER_ROLES);
  for (const login of [owner, runtime]) {
    await adminQuery(
      base,
      `create role "${login}" login password '${password}' nosuperuser nocreaterole nocreatedb`,
    );
    await adminQuery(base, `grant mess_app, mess_reader to "${login}"`);
  }
  await adminQuery(base, `create database "${name}" owner "${owner}"`);
  const urlOf = (login: string) => {
    const url = new URL(base);
    url.username = login;
    url.password = password;
    url.pathname = `/${name}`;
    return url.toString();
  };
  const database: TestDatabase = {
    url: urlOf(runtime),
    drop: async () => {
      await adminQuery(base, `drop database if exists "${name}" with (force)`);
      for (const login of [runtime, owner]) await adminQuery(base, `drop role if exists "${login}"`);
    },
  };
  return { owner, runtime, name, ownerUrl: urlOf(owner), runtimeUrl: urlOf(runtime), database };
}

/** A database that outlives an app: the app's close leaves it to the test. */
const keptBy = (database: TestDatabase): TestDatabase => ({ ...database, drop: async () => undefined });

/** Registration, approval, login, an expense, a payment into the ledger and the notification of the expense. */
async function serveAMess(t: TestApp, name: string, email: string): Promise<void> {
  const admin = await t.adminToken();
  expect((await t.post('/auth/admin/setup', messSetup({ messName: name }), { token: admin })).status).toBe(
    200,
  );
  const registration = {
    email,
    password: 'first-password',
    fullName: 'Asha Verma',
    collegeId: 'CS21B042',
    room: 'B-214',
    phone: '+91-9876543210',
  };
  const registered = await t.post('/auth/register', registration);
  expect(registered.status).toBe(201);
  expect((await t.put(`/users/${registered.body.userId}/approve`, undefined, { token: admin })).status).toBe(
    200,
  );
  const login = await t.post('/auth/login', { email: registration.email, password: registration.password });
  expect(login.status).toBe(200);
  expect(login.body.user.mess._id).toBe(FIRST_MESS_ID);
  const member = login.body.token as string;
  expect(
    (await t.put(`/users/${registered.body.userId}/role`, { role: 'manager' }, { token: admin })).status,
  ).toBe(200);

  const expense = { category: 'Groceries', amount: 1250.5, description: 'Rice', date: '2025-03-14' };
  const recorded = await t.post('/expenses', expense, { token: admin });
  expect(recorded.status).toBe(201);
  const listed = await t.get('/expenses?startDate=2025-03-14&endDate=2025-03-14', { token: member });
  expect(listed.body.expenses).toEqual([
    expect.objectContaining({ ...expense, _id: recorded.body.expense._id }),
  ]);

  const paid = await t.post(
    `/accounts/${registered.body.userId}/payments`,
    { amount: 1500, date: '2025-03-15', method: 'cash', note: 'March' },
    { token: admin, headers: { 'idempotency-key': `pay-${email}` } },
  );
  expect(paid.status).toBe(201);
  const account = await t.get(`/accounts/${registered.body.userId}`, { token: admin });
  expect(account.status).toBe(200);
  expect(account.body.entries).toEqual([expect.objectContaining({ _id: paid.body.entry._id })]);

  // The notification row and its delivery job, enqueued in one transaction as mess_app in the queue's tables (which
  // the owner installed), and the job run by the queue as the runtime login.
  expect(await notificationsOf(t).settle()).toBeGreaterThanOrEqual(1);
  const notified = await t.get('/notifications', { token: member });
  expect(notified.body.notifications).toEqual(
    expect.arrayContaining([expect.objectContaining({ type: 'EXPENSE_ADDED' })]),
  );
}

/** Every way to rewrite the ledger or the audit trail that a login with the service's environment could try. */
const REWRITES = [
  'alter table account_entries disable trigger account_entries_append_only',
  'alter table account_entries disable trigger all',
  'alter table audit_events disable trigger audit_events_append_only',
  'alter table audit_events disable trigger user',
  'drop trigger account_entries_no_truncate on account_entries',
  'alter table account_entries no force row level security',
  'alter table expenses add column rewritten integer',
  'drop policy account_entries_one_mess on account_entries',
  'drop policy audit_events_one_mess on audit_events',
  `create or replace function account_entries_guard() returns trigger language plpgsql as $$ begin return new; end $$`,
  'alter function forbid_change() owner to current_user',
  'set session_replication_role = replica',
  'update account_entries set amount_paise = amount_paise + 100000',
  'delete from account_entries',
  'truncate account_entries',
  `update audit_events set action = 'rewritten'`,
  'delete from audit_events',
  'truncate audit_events',
  // Erasure's own changes sent by hand, with the settings its guards look for: refused by the privileges (migration
  // 0040 revoked UPDATE, DELETE and TRUNCATE), which no setting switches off.
  'update account_entries set note = null',
  `do $$ begin perform set_config('app.ledger_erasure', 'on', true); update account_entries set note = null; end $$`,
  `do $$ begin perform set_config('app.audit_erasure', 'on', true); update audit_events set before = before; end $$`,
  // The SECURITY DEFINER functions erasure goes through: neither replaced, nor made to run as the caller, nor unpinned.
  `create or replace function erase_ledger_notes(member uuid) returns integer language sql as 'select 0'`,
  'alter function erase_ledger_notes(uuid) security invoker',
  'alter function erase_from_audit_trail(uuid) reset search_path',
];

/** A second mess, for the rows erasure's functions must not reach. */
const OTHER_MESS_ID = '00000000-0000-4000-8000-00000000b0b0';

(runs ? describe : describe.skip)('A runtime login that owns nothing (issue 45)', () => {
  const base = process.env.TEST_DATABASE_URL!;
  let logins: Awaited<ReturnType<typeof twoLogins>>;
  let t: TestApp;

  const asSuperuser = async <T>(sql: string): Promise<T[]> => {
    const url = new URL(base);
    url.pathname = `/${logins.name}`;
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
    logins = await twoLogins(base);
    t = await TestApp.start(
      { DATABASE_URL: logins.runtimeUrl, DATABASE_MIGRATION_URL: logins.ownerUrl },
      keptBy(logins.database),
    );
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await logins?.database.drop();
  });

  it('migrates as the owner: every table, schema and function belongs to it, none to the runtime login', async () => {
    const owners = await asSuperuser<{ owner: string }>(
      `select distinct tableowner as owner from pg_tables where schemaname in ('public', 'drizzle', '${QUEUE_SCHEMA}')`,
    );
    expect(owners).toEqual([{ owner: logins.owner }]);
    const [owned] = await asSuperuser<{ n: number }>(
      `select (select count(*) from pg_class where relowner = r.oid)
            + (select count(*) from pg_namespace where nspowner = r.oid)
            + (select count(*) from pg_proc where proowner = r.oid)
            + (select count(*) from pg_type where typowner = r.oid) as n
         from pg_roles r where rolname = '${logins.runtime}'`,
    );
    expect(Number(owned.n)).toBe(0);
    expect((await t.get('/health/jobs')).status).toBe(200);
  });

  it('serves as the runtime login: set-up, registration, approval, login, an expense, a payment, a notification', async () => {
    await serveAMess(t, 'Runtime Login Mess', 'asha@college.edu');
    const [entries] = await asSuperuser<{ n: number }>(
      `select count(*)::int as n from account_entries where mess_id = '${FIRST_MESS_ID}'`,
    );
    expect(entries.n).toBe(1);
    // The service's own connections and the queue's are the runtime login's.
    const users = await asSuperuser<{ user: string }>(
      `select distinct usename as user from pg_stat_activity where datname = '${logins.name}' and application_name in ('mess', 'mess-queue')`,
    );
    expect(users).toEqual([{ user: logins.runtime }]);
    // The queue's maintenance (expiry, deletion, monitoring), as the runtime login: no statement needs ownership.
    const boss = (notificationsOf(t).queue as unknown as { boss: { supervise(): Promise<void> } }).boss;
    await expect(boss.supervise()).resolves.toBeUndefined();
  });

  it.each([
    ['the runtime login itself', undefined],
    [`SET ROLE ${APP_ROLE}`, APP_ROLE],
    [`SET ROLE ${READER_ROLE}`, READER_ROLE],
  ])('refuses every rewrite of the ledger and the audit trail to %s (SQLSTATE 42501)', async (_, role) => {
    const [before] = await asSuperuser<{ ledger: string; entries: number; trail: number }>(
      `select (select sum(amount_paise) from account_entries)::text as ledger,
              (select count(*)::int from account_entries) as entries, (select count(*)::int from audit_events) as trail`,
    );
    expect(before.entries).toBeGreaterThan(0);
    expect(before.trail).toBeGreaterThan(0);
    const client = new Client({ connectionString: logins.runtimeUrl });
    client.on('error', () => undefined);
    await client.connect();
    const refusals: Record<string, string | undefined> = {};
    try {
      for (const statement of REWRITES) {
        await client.query('begin');
        if (role) await client.query(`set local role ${role}`);
        // In the mess whose rows exist, so an UPDATE or DELETE under mess_app's policy reaches rows.
        await client.query(`select set_config('app.mess', $1, true)`, [FIRST_MESS_ID]);
        refusals[statement] = await client.query(statement).then(
          () => 'done',
          (error: { code?: string }) => error.code,
        );
        await client.query('rollback');
      }
    } finally {
      await client.end();
    }
    expect(refusals).toEqual(Object.fromEntries(REWRITES.map((statement) => [statement, '42501'])));
    const [after] = await asSuperuser<typeof before>(
      `select (select sum(amount_paise) from account_entries)::text as ledger,
              (select count(*)::int from account_entries) as entries, (select count(*)::int from audit_events) as trail`,
    );
    expect(after).toEqual(before);
  });

  it("erases one member's text only through the owner's two functions: in a mess of theirs, never an amount (42501)", async () => {
    const admin = await t.adminToken();
    const registered = await t.post('/auth/register', {
      email: 'kiran@college.edu',
      password: 'first-password',
      fullName: 'Kiran Rao',
      collegeId: 'CS21B099',
      room: 'D-303',
      phone: '+91-9876500099',
    });
    expect(registered.status).toBe(201);
    const member = registered.body.userId as string;
    expect((await t.put(`/users/${member}/approve`, undefined, { token: admin })).status).toBe(200);
    const paid = await t.post(
      `/accounts/${member}/payments`,
      { amount: 700, date: '2025-03-17', method: 'cash', note: 'Kiran Rao paid in cash' },
      { token: admin, headers: { 'idempotency-key': 'pay-kiran' } },
    );
    expect(paid.status).toBe(201);
    // Another mess the member never belonged to, whose ledger and trail name them.
    await asSuperuser(`insert into messes (id, slug) values ('${OTHER_MESS_ID}', 'sealed-other')`);
    await asSuperuser(
      `insert into account_entries (mess_id, user_id, kind, direction, amount_paise, date, note)
         values ('${OTHER_MESS_ID}', '${member}', 'adjustment', 'debit', 4200, '2025-03-18', 'Kiran Rao advance');
       insert into audit_events (mess_id, action, entity, entity_id, before, after)
         values ('${OTHER_MESS_ID}', 'legacy-profile', 'user', '${member}', null, '{"contact": "kiran@college.edu"}'),
                ('${FIRST_MESS_ID}', 'legacy-profile', 'user', '${member}', null, '{"contact": "kiran@college.edu"}')`,
    );
    const ledger = () =>
      asSuperuser<{ mess: string; amount: string; date: string; note: string | null }>(
        `select mess_id as mess, amount_paise::text as amount, date::text as date, note from account_entries
          where user_id = '${member}' order by mess_id`,
      );
    const trail = () =>
      asSuperuser<{ mess: string; after: unknown }>(
        `select mess_id as mess, after from audit_events where action = 'legacy-profile' and entity_id = '${member}'
          order by mess_id`,
      );
    const totals = () =>
      asSuperuser<{ sum: string; entries: number; rows: number }>(
        `select (select sum(amount_paise) from account_entries)::text as sum,
                (select count(*)::int from account_entries) as entries, (select count(*)::int from audit_events) as rows`,
      );
    const [ledgerBefore, totalsBefore] = [await ledger(), await totals()];
    expect(ledgerBefore).toEqual([
      { mess: FIRST_MESS_ID, amount: '70000', date: '2025-03-17', note: 'Kiran Rao paid in cash' },
      { mess: OTHER_MESS_ID, amount: '4200', date: '2025-03-18', note: 'Kiran Rao advance' },
    ]);

    const client = new Client({ connectionString: logins.runtimeUrl });
    client.on('error', () => undefined);
    await client.connect();
    /** One statement as the runtime login, in its own transaction, rolled back: its SQLSTATE, or 'done'. */
    const attempt = async (statement: string, { role = APP_ROLE, mess = FIRST_MESS_ID } = {}) => {
      await client.query('begin');
      await client.query(`set local role ${role}`);
      await client.query(`select set_config('app.mess', $1, true)`, [mess]);
      const outcome = await client.query(statement).then(
        () => 'done',
        (error: { code?: string }) => error.code,
      );
      await client.query('rollback');
      return outcome;
    };
    try {
      const refusals = {
        'ledger, in a mess never theirs': await attempt(`select erase_ledger_notes('${member}')`, {
          mess: OTHER_MESS_ID,
        }),
        'trail, in a mess never theirs': await attempt(`select erase_from_audit_trail('${member}')`, {
          mess: OTHER_MESS_ID,
        }),
        'ledger, in no mess': await attempt(`select erase_ledger_notes('${member}')`, { mess: '' }),
        'trail, for nobody': await attempt(`select erase_from_audit_trail(gen_random_uuid())`),
        'ledger, as mess_reader': await attempt(`select erase_ledger_notes('${member}')`, {
          role: READER_ROLE,
        }),
        'trail, as mess_reader': await attempt(`select erase_from_audit_trail('${member}')`, {
          role: READER_ROLE,
        }),
        "the helper that reads a person's values": await attempt(`select erasure_values_of('${member}')`),
        'the helper that checks the mess': await attempt(`select erasure_mess_of('${member}')`),
        'an amount, right after the function ran': await attempt(
          `do $$ begin perform erase_ledger_notes('${member}');
             update account_entries set amount_paise = amount_paise + 100000; end $$`,
        ),
        "a date, with the guard's setting on": await attempt(
          `do $$ begin perform set_config('app.ledger_erasure', 'on', true);
             update account_entries set date = date + 1; end $$`,
        ),
        "the values as the caller's arguments (the old signature)": await attempt(
          `select erase_ledger_notes('${member}', array['paid'])`,
        ),
      };
      expect(refusals).toEqual({
        'ledger, in a mess never theirs': '42501',
        'trail, in a mess never theirs': '42501',
        'ledger, in no mess': '42501',
        'trail, for nobody': '42501',
        'ledger, as mess_reader': '42501',
        'trail, as mess_reader': '42501',
        "the helper that reads a person's values": '42501',
        'the helper that checks the mess': '42501',
        'an amount, right after the function ran': '42501',
        "a date, with the guard's setting on": '42501',
        "the values as the caller's arguments (the old signature)": '42883',
      });
      // The privilege refuses, before any guard: PostgreSQL's own message.
      await client.query('begin');
      await client.query(`set local role ${APP_ROLE}`);
      await client.query(`select set_config('app.mess', $1, true)`, [FIRST_MESS_ID]);
      await expect(client.query('update account_entries set note = null')).rejects.toThrow(
        'permission denied for table account_entries',
      );
      await client.query('rollback');

      // In the member's mess, as mess_app: their text goes, in that mess only.
      await client.query('begin');
      await client.query(`set local role ${APP_ROLE}`);
      await client.query(`select set_config('app.mess', $1, true)`, [FIRST_MESS_ID]);
      const changed = await client.query<{ ledger: number; trail: number }>(
        `select erase_ledger_notes($1) as ledger, erase_from_audit_trail($1) as trail`,
        [member],
      );
      expect(changed.rows[0].ledger).toBe(1);
      expect(changed.rows[0].trail).toBeGreaterThanOrEqual(1);
      await client.query('commit');
    } finally {
      await client.end();
    }
    expect(await ledger()).toEqual([
      { ...ledgerBefore[0], note: null },
      ledgerBefore[1], // another mess's entry: not reached
    ]);
    expect(await trail()).toEqual([
      { mess: FIRST_MESS_ID, after: { contact: null } },
      { mess: OTHER_MESS_ID, after: { contact: 'kiran@college.edu' } },
    ]);
    expect(await totals()).toEqual(totalsBefore);
  });

  it("still lets erasure's one allowed change through, as the runtime login: a person's values removed from the trail", async () => {
    const admin = await t.adminToken();
    const person = { email: 'meera@college.edu', password: 'first-password', fullName: 'Meera Iyer' };
    const registered = await t.post('/auth/register', {
      ...person,
      collegeId: 'CS21B077',
      room: 'C-101',
      phone: '+91-9876500077',
    });
    expect(registered.status).toBe(201);
    expect(
      (await t.put(`/users/${registered.body.userId}/approve`, undefined, { token: admin })).status,
    ).toBe(200);
    // A trail row as an older version might have written it, with the person's email in its snapshot.
    await asSuperuser(
      `insert into audit_events (mess_id, action, entity, entity_id, before, after)
         values ('${FIRST_MESS_ID}', 'legacy-profile', 'user', '${registered.body.userId}', null,
                 '{"contact": "${person.email}", "kept": 42}'::jsonb)`,
    );
    const erased = await t.post(
      `/users/${registered.body.userId}/erase`,
      { confirm: true },
      { token: admin },
    );
    expect(erased.status).toBe(200);
    const [row] = await asSuperuser<{ after: unknown }>(
      `select after from audit_events where action = 'legacy-profile' and entity_id = '${registered.body.userId}'`,
    );
    expect(row.after).toEqual({ contact: null, kept: 42 });
  });

  it('is a test that can fail: the owner may switch the guard off (the credential the service no longer holds)', async () => {
    const client = new Client({ connectionString: logins.ownerUrl });
    client.on('error', () => undefined);
    await client.connect();
    try {
      await client.query('begin');
      await expect(client.query(REWRITES[0])).resolves.toBeDefined();
      await client.query('rollback');
    } finally {
      await client.end();
    }
  });

  it('starts with the runtime login alone once the owner has migrated, and serves', async () => {
    const alone = await TestApp.start({ DATABASE_URL: logins.runtimeUrl }, keptBy(logins.database));
    try {
      const admin = await alone.adminToken();
      const listed = await alone.get('/expenses?startDate=2025-03-14&endDate=2025-03-14', { token: admin });
      expect(listed.status).toBe(200);
      expect(listed.body.expenses).toHaveLength(1);
      const recorded = await alone.post(
        '/expenses',
        { category: 'Gas', amount: 800, description: 'Cylinder', date: '2025-03-16' },
        { token: admin },
      );
      expect(recorded.status).toBe(201);
      expect(await notificationsOf(alone).settle()).toBeGreaterThanOrEqual(1);
    } finally {
      await alone.close();
    }
  });
});

(runs ? describe : describe.skip)('A runtime login on a database its owner never migrated (issue 45)', () => {
  const base = process.env.TEST_DATABASE_URL!;
  let logins: Awaited<ReturnType<typeof twoLogins>> | undefined;
  afterAll(async () => {
    await logins?.database.drop();
  });

  it("does not start: the error names the owner's command, and nothing is migrated", async () => {
    logins = await twoLogins(base);
    await expect(TestApp.start({ DATABASE_URL: logins.runtimeUrl }, keptBy(logins.database))).rejects.toThrow(
      `The database is not migrated to this version (its migrations cannot be read), and DATABASE_URL's login ` +
        `${logins.runtime} may not create in it, so cannot migrate it: run npm run db:migrate with ` +
        'DATABASE_MIGRATION_URL set to the owner of the tables',
    );
    const url = new URL(base);
    url.pathname = `/${logins.name}`;
    const client = new Client({ connectionString: url.toString() });
    client.on('error', () => undefined);
    await client.connect();
    const migrated: unknown = (await client.query(`select to_regclass('drizzle.__drizzle_migrations') as t`))
      .rows[0].t;
    await client.end();
    expect(migrated).toBeNull();
  });
});

(runs && PGBOUNCER ? describe : describe.skip)(
  'A runtime login behind pgbouncer in transaction mode (issue 45)',
  () => {
    const base = process.env.TEST_DATABASE_URL!;
    let logins: Awaited<ReturnType<typeof twoLogins>>;
    let pooler: Pgbouncer;
    let t: TestApp;

    beforeAll(async () => {
      logins = await twoLogins(base);
      pooler = await startPgbouncer(logins.runtimeUrl, { poolSize: 4 });
      t = await TestApp.start(
        {
          DATABASE_URL: pooler.via(logins.runtimeUrl),
          DATABASE_DIRECT_URL: logins.runtimeUrl,
          DATABASE_POOL_MODE: 'transaction',
          DATABASE_MIGRATION_URL: logins.ownerUrl,
        },
        keptBy(logins.database),
      );
    }, 120_000);
    afterAll(async () => {
      await t?.close();
      await pooler?.stop();
      await logins?.database.drop();
    });

    it("migrates on the owner's direct URL and serves through the pooler as the runtime login", async () => {
      await serveAMess(t, 'Pooled Runtime Mess', 'ravi@college.edu');
    });
  },
);
