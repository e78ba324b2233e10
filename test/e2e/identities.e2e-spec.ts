import { TestApp } from '../support/app';
import { usingServer } from '../support/database';
import { type OwnerQuery, upgradeInPlace } from '../support/upgrade';

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

  const inspect = async (query: OwnerQuery) =>
    expectUpgraded((await query<{ users: unknown; collisions: unknown }>(read))[0]);

  it('embedded: normalizes every address and reports the NFD duplicate instead of merging it', async () => {
    await upgradeInPlace({ lastTag: BEFORE, fill, inspect });
  });

  (usingServer() ? it : it.skip)('server: the same upgrade', async () => {
    await upgradeInPlace({ lastTag: BEFORE, fill, inspect, serverUrl: process.env.TEST_DATABASE_URL! });
  });
});
