import { asOwner } from '../support/owner-sql';
import { Database } from '../../src/database/database';
import { TestApp } from '../support/app';
import { captureLogs } from '../support/logs';

describe('Users', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.adminToken();
  });
  afterAll(() => t?.close());

  it('lists members for an admin, filtered by status and role, without secrets', async () => {
    const manager = await t.member('manager');
    const pendingReg = await t.post('/auth/register', {
      email: 'pending@test.local',
      password: 'pending-pass',
      fullName: 'Pending Person',
      collegeId: 'P1',
      room: 'P-1',
      phone: '9000000001',
    });
    const all = await t.get('/users', { token: admin });
    expect(all.status).toBe(200);
    expect(all.body.success).toBe(true);
    expect(all.body.pagination).toMatchObject({ page: 1, total: all.body.users.length });
    expect(all.body.users.length).toBeGreaterThan(0);
    for (const user of all.body.users) {
      expect(Object.keys(user)).toEqual(
        expect.arrayContaining(['_id', 'email', 'fullName', 'collegeId', 'role', 'status', 'createdAt']),
      );
      expect(user).not.toHaveProperty('password');
      expect(user).not.toHaveProperty('passwordHash');
      expect(user).not.toHaveProperty('tokenVersion');
    }

    const pending = await t.get('/users?status=pending', { token: admin });
    expect(pending.body.users.map((u: { _id: string }) => u._id)).toEqual([pendingReg.body.userId]);
    const managers = await t.get('/users?role=manager&status=approved', { token: admin });
    expect(managers.body.users.map((u: { _id: string }) => u._id)).toEqual([manager.id]);

    const bad = await t.get('/users?role=chef', { token: admin });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([{ field: 'role', message: expect.any(String) }]);
    expect((await t.get('/users?limit=501', { token: admin })).status).toBe(400);
    expect((await t.get('/users?page=0', { token: admin })).status).toBe(400);

    const paged = await t.get('/users?limit=1&page=2', { token: admin });
    expect(paged.body.users).toHaveLength(1);
    expect(paged.body.pagination).toEqual({ page: 2, limit: 1, total: all.body.pagination.total });
  });

  it('lets a member read themself, staff read anyone, and a student nobody else', async () => {
    const a = await t.member();
    const b = await t.member();
    const treasurer = await t.member('treasurer');
    expect((await t.get(`/users/${a.id}`, { token: a.token })).body.user).toMatchObject({
      _id: a.id,
      email: a.email,
    });
    expect((await t.get(`/users/${a.id}`, { token: treasurer.token })).status).toBe(200);
    const denied = await t.get(`/users/${a.id}`, { token: b.token });
    expect(denied.status).toBe(403);
    expect(denied.body.success).toBe(false);
    expect((await t.get('/users/00000000-0000-4000-8000-000000000000', { token: admin })).status).toBe(404);
    const malformed = await t.get('/users/not-a-uuid', { token: admin });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ success: false, error: 'Invalid id: expected a UUID' });
  });

  it('updates only your own profile and normalizes the phone', async () => {
    const a = await t.member();
    const b = await t.member();
    const own = await t.put(`/users/${a.id}`, { phone: '9123456789' }, { token: a.token });
    expect(own.status).toBe(200);
    expect(own.body.user.phone).toBe('+919123456789');
    const other = await t.put(`/users/${b.id}`, { fullName: 'Hacked' }, { token: a.token });
    expect(other.status).toBe(403);
    expect((await t.get(`/users/${b.id}`, { token: b.token })).body.user.fullName).toBe(b.fullName);

    for (const body of [
      { phone: '12345' },
      { phone: '+44-7700900123' },
      { fullName: '' },
      { role: 'admin' },
      {},
    ]) {
      const res = await t.put(`/users/${a.id}`, body, { token: a.token });
      expect(res.status).toBe(400);
    }
    const after = (await t.get(`/users/${a.id}`, { token: a.token })).body.user;
    expect(after).toMatchObject({ phone: '+919123456789', role: 'student', fullName: a.fullName });

    // an admin may correct anyone's profile
    expect(
      (await t.put(`/users/${b.id}`, { fullName: 'Fixed Name' }, { token: admin })).body.user.fullName,
    ).toBe('Fixed Name');
  });

  it("changes a member's room: the member themself and an admin, validated as at registration", async () => {
    const a = await t.member();
    const b = await t.member();
    const own = await t.put(`/users/${a.id}`, { room: '  C-301 ' }, { token: a.token });
    expect([own.status, own.body.user.room]).toEqual([200, 'C-301']);
    expect((await t.get(`/users/${a.id}`, { token: admin })).body.user).toMatchObject({
      room: 'C-301',
      fullName: a.fullName,
    });
    // another member may not; an admin may, with other fields at once
    const other = await t.put(`/users/${b.id}`, { room: 'X-1' }, { token: a.token });
    expect([other.status, other.body]).toEqual([
      403,
      { success: false, error: 'You can only edit your own profile' },
    ]);
    const byAdmin = await t.put(
      `/users/${b.id}`,
      { room: 'D-12', fullName: 'Moved Member' },
      { token: admin },
    );
    expect(byAdmin.body.user).toMatchObject({ room: 'D-12', fullName: 'Moved Member' });
    const manager = await t.member('manager');
    expect((await t.put(`/users/${b.id}`, { room: 'E-1' }, { token: manager.token })).status).toBe(403);
    for (const [room, message] of [
      ['', 'room must be longer than or equal to 1 characters'],
      ['x'.repeat(31), 'room must be shorter than or equal to 30 characters'],
      ['B\u0007214', 'room must not contain control characters'],
      [214, 'room must be a string'],
      [null, 'room must not be null; leave it out instead'],
    ] as const) {
      const res = await t.put(`/users/${a.id}`, { room }, { token: a.token });
      expect([room, res.status, res.body.details]).toEqual([room, 400, [{ field: 'room', message }]]);
    }
    expect((await t.get(`/users/${a.id}`, { token: a.token })).body.user.room).toBe('C-301');
  });

  it('refuses null for an optional field with a details entry, and changes nothing', async () => {
    const a = await t.member('student', { phone: '9123450001' });
    for (const field of ['fullName', 'phone']) {
      const res = await t.put(`/users/${a.id}`, { [field]: null }, { token: a.token });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([
        { field, message: `${field} must not be null; leave it out instead` },
      ]);
    }
    expect((await t.get(`/users/${a.id}`, { token: a.token })).body.user).toMatchObject({
      fullName: a.fullName,
      phone: '+919123450001',
    });
  });

  it('answers 400 to a NUL in a name and logs no query text or parameters of a database failure', async () => {
    const a = await t.member('student', { phone: '9123450002' });
    const nul = await t.put(`/users/${a.id}`, { fullName: 'A\u0000B' }, { token: a.token });
    expect(nul.status).toBe(400);
    expect(nul.body.details).toEqual([
      { field: 'fullName', message: 'fullName must not contain control characters' },
    ]);

    // Force a database error the service does not translate: a trigger that fails every update of this member.
    const database = t.app.get(Database);
    await asOwner(
      database,
      `create function mess_test_fail() returns trigger language plpgsql as $$
        begin raise exception 'forced failure' using errcode = 'XX001'; end $$`,
    );
    await asOwner(
      database,
      `create trigger mess_test_fail before update on users for each row
        when (old.id = '${a.id}') execute function mess_test_fail()`,
    );
    const logs = captureLogs();
    try {
      const res = await t.put(`/users/${a.id}`, { phone: '9123450003' }, { token: a.token });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ success: false, error: 'Internal server error' });
      const logged = logs
        .of('Errors')
        .map((line) => line.text)
        .join('\n');
      expect(logged).toContain('XX001');
      expect(logged).toContain('forced failure');
      expect(logged).not.toMatch(/Failed query|params|update "users"/);
      expect(logged).not.toContain('9123450003');
      expect(logged).not.toContain(a.fullName);
    } finally {
      logs.restore();
      await asOwner(database, 'drop trigger mess_test_fail on users');
      await asOwner(database, 'drop function mess_test_fail()');
    }
  });

  it('sets the caller phone through POST /users/profile', async () => {
    const a = await t.member();
    const res = await t.post('/users/profile', { phone: '+91-9988776655' }, { token: a.token });
    expect(res.status).toBe(200); // an update of the profile, not a creation
    expect(res.body.user.phone).toBe('+919988776655');
    expect((await t.post('/users/profile', { phone: 'call me' }, { token: a.token })).status).toBe(400);
    expect((await t.post('/users/profile', { phone: '9988776655' })).body).toEqual({ error: 'No token' });
  });

  it('changes roles (admin only), refusing unknown roles and the last admin', async () => {
    const a = await t.member();
    const student = await t.member();
    expect(
      (await t.put(`/users/${a.id}/role`, { role: 'treasurer' }, { token: student.token })).body,
    ).toEqual({
      error: 'Forbidden',
    });
    const bad = await t.put(`/users/${a.id}/role`, { role: 'chef' }, { token: admin });
    expect(bad.status).toBe(400);
    const ok = await t.put(`/users/${a.id}/role`, { role: 'treasurer' }, { token: admin });
    expect(ok.status).toBe(200);
    expect(ok.body.user.role).toBe('treasurer');

    const me = (await t.get('/auth/verify', { token: admin })).body.user;
    const demote = await t.put(`/users/${me._id}/role`, { role: 'student' }, { token: admin });
    expect(demote.status).toBe(409);
    expect(demote.body.error).toMatch(/last approved admin/);
  });

  it('keeps an approved admin when two admins demote or reject each other at the same moment', async () => {
    const first = await t.member('admin');
    const second = await t.member('admin');
    const bootstrap = (await t.get('/auth/verify', { token: admin })).body.user._id as string;
    // Leave exactly these two approved admins.
    expect(
      (await t.put(`/users/${bootstrap}/role`, { role: 'manager' }, { token: first.token })).status,
    ).toBe(200);
    try {
      for (const [change, body] of [
        ['role', { role: 'student' }],
        ['reject', undefined],
      ] as const) {
        const results = await Promise.all([
          t.put(`/users/${second.id}/${change}`, body, { token: first.token }),
          t.put(`/users/${first.id}/${change}`, body, { token: second.token }),
        ]);
        const statuses = results.map((r) => r.status).sort();
        // One wins; the other is 409 (last admin) or, having lost its own admin role first, 401/403.
        expect(statuses[0]).toBe(200);
        expect([401, 403, 409]).toContain(statuses[1]);
        const admins = await t
          .get('/users?role=admin&status=approved', { token: first.token })
          .then((r) =>
            r.status === 200 ? r : t.get('/users?role=admin&status=approved', { token: second.token }),
          );
        expect(admins.body.users).toHaveLength(1);
        // Restore both for the next round.
        const survivor = admins.body.users[0]._id === first.id ? first : second;
        const other = survivor === first ? second : first;
        await t.put(`/users/${other.id}/approve`, undefined, { token: survivor.token });
        await t.put(`/users/${other.id}/role`, { role: 'admin' }, { token: survivor.token });
        other.token = await t.login(other.email, other.password);
      }
    } finally {
      await t.put(`/users/${bootstrap}/role`, { role: 'admin' }, { token: first.token });
    }
  });

  it('moves status pending → approved → rejected → approved, idempotently', async () => {
    const reg = await t.post('/auth/register', {
      email: 'cycle@test.local',
      password: 'cycle-pass-1',
      fullName: 'Cycle',
      collegeId: 'C',
      room: 'R',
      phone: '9000000002',
    });
    const id = reg.body.userId;
    expect((await t.put(`/users/${id}/reject`, undefined, { token: admin })).body.user.status).toBe(
      'rejected',
    );
    expect((await t.put(`/users/${id}/reject`, undefined, { token: admin })).status).toBe(200);
    expect(
      (await t.post('/auth/login', { email: 'cycle@test.local', password: 'cycle-pass-1' })).status,
    ).toBe(403);
    expect((await t.put(`/users/${id}/approve`, undefined, { token: admin })).body.user.status).toBe(
      'approved',
    );
    expect((await t.put(`/users/${id}/approve`, undefined, { token: admin })).body.user.status).toBe(
      'approved',
    );
    expect(
      (await t.post('/auth/login', { email: 'cycle@test.local', password: 'cycle-pass-1' })).status,
    ).toBe(200);
    expect(
      (await t.put('/users/00000000-0000-4000-8000-000000000000/approve', undefined, { token: admin }))
        .status,
    ).toBe(404);
  });
});
