import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { MIGRATIONS_FOLDER } from '../../src/database/database';
import { TestApp } from '../support/app';
import { adminQuery, usingServer } from '../support/database';

const registration = (email: string, fullName = 'Asha Verma') => ({
  email,
  password: 'a-good-password-1',
  fullName,
  collegeId: 'CS21B042',
  room: 'B-204',
  phone: '+91-9876543210',
});

describe('Identities that cannot be imitated', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start();
    expect((await t.post('/auth/register', registration('student@college.edu'))).status).toBe(201);
    expect((await t.post('/auth/register', registration('café@college.edu'))).status).toBe(201);
  });
  afterAll(() => t?.close());

  const emailError = (body: any) => body.details?.find((d: any) => d.field === 'email')?.message;

  it.each([
    ['fullwidth ｓ', 'ｓtudent@college.edu', 409],
    ['fullwidth capitals', 'ＳＴＵＤＥＮＴ@college.edu', 409],
    ['upper case and spaces', '  Student@College.EDU ', 409],
    ['café in NFD', 'cafe\u0301@college.edu', 409],
    ['Cyrillic а', 'stud\u0435nt@college.edu', 400],
    ['Cyrillic а in the domain', 'student@coll\u0435ge.edu', 400],
    ['a zero-width space', 'stu\u200Bdent@college.edu', 400],
    ['a zero-width joiner', 'stu\u200Ddent@college.edu', 400],
    ['a soft hyphen', 'stu\u00ADdent@college.edu', 400],
    ['a right-to-left override', '\u202Estudent@college.edu', 400],
  ])('%s: %j is %i against the real account', async (_what, email, status) => {
    const res = await t.post('/auth/register', registration(email));
    expect(res.status).toBe(status);
    if (status === 400) expect(emailError(res.body)).toMatch(/invisible|scripts/);
    else expect(res.body.error).toMatch(/already/i);
  });

  it('logs in whichever way the address is spelled', async () => {
    for (const email of ['ｓtudent@college.edu', 'STUDENT@college.edu', 'cafe\u0301@college.edu'])
      expect((await t.post('/auth/login', { email, password: 'a-good-password-1' })).status).toBe(403); // pending
  });

  it('refuses names that display other than they read', async () => {
    const reversed = await t.post('/auth/register', registration('rlo@college.edu', 'Asha \u202EamreV'));
    expect(reversed.status).toBe(400);
    expect(reversed.body.details).toContainEqual({
      field: 'fullName',
      message: 'fullName must not contain direction-control characters',
    });
    const hidden = await t.post('/auth/register', registration('zw@college.edu', 'As\u200Bha'));
    expect(hidden.status).toBe(400);
    expect(hidden.body.details).toContainEqual({
      field: 'fullName',
      message: 'fullName must not contain invisible characters',
    });
    // a joiner where a script needs it is part of the name
    expect((await t.post('/auth/register', registration('malayalam@college.edu', 'അവന്‍'))).status).toBe(201);
  });
});

/** The committed migrations up to and including `lastTag`, in a folder of their own. */
function migrationsUpTo(lastTag: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'mess-migrations-'));
  cpSync(MIGRATIONS_FOLDER, dir, { recursive: true });
  const journalPath = join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8'));
  const last = journal.entries.findIndex((e: { tag: string }) => e.tag === lastTag);
  journal.entries = journal.entries.slice(0, last + 1);
  writeFileSync(journalPath, JSON.stringify(journal));
  return dir;
}

const BEFORE = '0015_attendance_previous_status';
const fill = `
  insert into users (id, email, full_name, role, status) values
    ('00000000-0000-4000-8000-000000000001', 'café@college.edu', 'Asha NFC', 'student', 'approved'),
    ('00000000-0000-4000-8000-000000000002', E'cafe\\u0301@college.edu', 'Asha NFD', 'student', 'approved'),
    ('00000000-0000-4000-8000-000000000003', E'\\uFF53olo@college.edu', 'Solo', 'student', 'approved')`;
const read = `
  select (select json_agg(json_build_object('id', id, 'email', email) order by id) from users
          where id::text like '00000000-%') as users,
         (select json_agg(json_build_object('userId', user_id, 'collidesWith', collides_with, 'normalized', normalized_email))
          from email_collisions) as collisions`;

describe('An existing database with look-alike addresses, upgraded in place', () => {
  const expectUpgraded = (row: { users: unknown; collisions: unknown }) => {
    expect(row.users).toEqual([
      { id: '00000000-0000-4000-8000-000000000001', email: 'café@college.edu' },
      { id: '00000000-0000-4000-8000-000000000002', email: 'cafe\u0301@college.edu' }, // kept, reported
      { id: '00000000-0000-4000-8000-000000000003', email: 'solo@college.edu' }, // normalized
    ]);
    expect(row.collisions).toEqual([
      {
        userId: '00000000-0000-4000-8000-000000000002',
        collidesWith: '00000000-0000-4000-8000-000000000001',
        normalized: 'café@college.edu',
      },
    ]);
  };

  it('embedded: normalizes every address and reports the NFD duplicate instead of merging it', async () => {
    const older = migrationsUpTo(BEFORE);
    const dataDir = mkdtempSync(join(tmpdir(), 'mess-upgrade-'));
    try {
      const before = new PGlite(join(dataDir, 'pgdata')); // where the service keeps its data (database.ts)
      await migratePglite(drizzlePglite({ client: before }), { migrationsFolder: older });
      await before.exec(fill);
      await before.close();
      // The service itself upgrades it at start-up, as a deployment would.
      const t = await TestApp.start({ DATA_DIR: dataDir }, { drop: async () => undefined }); // the embedded engine, also in the server suite
      try {
        await t.close();
      } finally {
        const after = new PGlite(join(dataDir, 'pgdata'));
        expectUpgraded((await after.query<{ users: unknown; collisions: unknown }>(read)).rows[0]);
        await after.close();
      }
    } finally {
      rmSync(older, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  (usingServer() ? it : it.skip)('server: the same upgrade', async () => {
    const base = process.env.TEST_DATABASE_URL!;
    const name = `mess_upgrade_${process.pid}_${Date.now()}`;
    const url = new URL(base);
    url.pathname = `/${name}`;
    await adminQuery(base, `create database "${name}"`);
    const older = migrationsUpTo(BEFORE);
    try {
      const client = new Client({ connectionString: url.toString() });
      await client.connect();
      await migratePg(drizzlePg({ client }), { migrationsFolder: older });
      await client.query(fill);
      await client.end();
      const t = await TestApp.start(
        { DATABASE_URL: url.toString() },
        { url: url.toString(), drop: async () => {} },
      );
      await t.close();
      const check = new Client({ connectionString: url.toString() });
      await check.connect();
      expectUpgraded((await check.query(read)).rows[0]);
      await check.end();
    } finally {
      rmSync(older, { recursive: true, force: true });
      await adminQuery(base, `drop database if exists "${name}" with (force)`);
    }
  });
});
