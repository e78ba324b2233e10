import { TestApp } from '../support/app';

describe('Users', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.adminToken();
  });
  afterAll(() => t.close());

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
