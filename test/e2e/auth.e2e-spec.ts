import { FIRST_MESS_ID } from '../../src/common/tenancy/mess-scope';
import { ADMIN, TEST_JWT_SECRET, TestApp } from '../support/app';
import { decodePayload, hs256, unsignedAlgNone } from '../support/tokens';

describe('Auth: the contract walked as a new member would', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start();
  });
  afterAll(() => t?.close());

  const registration = {
    email: 'Asha.Verma@College.edu ',
    password: 'first-password',
    fullName: 'Asha Verma',
    collegeId: 'CS21B042',
    room: 'B-214',
    phone: '+91-9876543210',
  };

  it('takes a member from registration to password change', async () => {
    // register → pending
    const reg = await t.post('/auth/register', registration);
    expect(reg.status).toBe(201);
    expect(reg.body).toEqual({
      success: true,
      message: expect.stringMatching(/approv/i),
      userId: expect.any(String),
    });
    const userId = reg.body.userId;

    // pending → login 403
    const pending = await t.post('/auth/login', {
      email: 'asha.verma@college.edu',
      password: 'first-password',
    });
    expect(pending.status).toBe(403);
    expect(pending.body).toEqual({ success: false, error: 'Account pending approval' });

    // admin approves
    const admin = await t.adminToken();
    const approved = await t.put(`/users/${userId}/approve`, undefined, { token: admin });
    expect(approved.status).toBe(200);
    expect(approved.body.user.status).toBe('approved');

    // login → token
    const login = await t.post('/auth/login', {
      email: 'ASHA.VERMA@college.edu',
      password: 'first-password',
    });
    expect(login.status).toBe(200);
    expect(login.body).toEqual({
      success: true,
      token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      user: {
        _id: userId,
        email: 'asha.verma@college.edu',
        fullName: 'Asha Verma',
        role: 'student',
        status: 'approved',
        // Extension 2.2 adds the member's mess to the user object.
        mess: { _id: FIRST_MESS_ID, slug: 'main', messName: expect.any(String) },
      },
    });
    const token = login.body.token;
    const claims = decodePayload(token);
    expect(claims.exp - claims.iat).toBe(7 * 24 * 3600);
    expect(JSON.stringify(login.body)).not.toMatch(/password/i);

    // verify, at both paths
    for (const path of ['/auth/verify', '/verify']) {
      const verify = await t.get(path, { token });
      expect(verify.status).toBe(200);
      expect(verify.body).toEqual({ valid: true, user: login.body.user });
    }

    // profile update with a hyphenated phone comes back normalized
    const profile = await t.put(
      `/users/${userId}`,
      { fullName: 'Asha V.', phone: '+91-9123456780' },
      { token },
    );
    expect(profile.status).toBe(200);
    expect(profile.body.user).toMatchObject({ fullName: 'Asha V.', phone: '+919123456780' });
    expect(profile.body.user.password).toBeUndefined();
    expect(profile.body.user.passwordHash).toBeUndefined();
    // the token's holder is read again after the change: the new name at once
    expect((await t.get('/auth/verify', { token })).body.user.fullName).toBe('Asha V.');

    // admin sets the mess up once; the second time is 409
    const setup = {
      messName: 'Hostel 7 Mess',
      description: 'Vegetarian',
      email: 'mess@college.edu',
      phone: '+91-8012345678',
      expenseCategories: ['Groceries', 'Gas'],
      mealTimes: [
        { name: 'Breakfast', startTime: '07:30', endTime: '09:30' },
        { name: 'Dinner', startTime: '19:30', endTime: '21:30' },
      ],
    };
    const first = await t.post('/auth/admin/setup', setup, { token: admin });
    expect(first.status).toBe(200);
    // the contact phone is normalized like every phone of the service
    expect(first.body.config).toMatchObject({ ...setup, phone: '+918012345678', configured: true });
    const second = await t.post('/auth/admin/setup', setup, { token: admin });
    expect(second.status).toBe(409);
    expect(second.body).toEqual({ success: false, error: 'The mess is already set up' });

    // anyone reads the config, without a token
    const config = await t.get('/auth/admin/config');
    expect(config.status).toBe(200);
    expect(config.body.config).toMatchObject({
      messName: 'Hostel 7 Mess',
      expenseCategories: ['Groceries', 'Gas'],
    });

    // logout → the same token is now 401 Invalid token
    const logout = await t.post('/auth/logout', undefined, { token });
    expect(logout.status).toBe(200);
    expect(logout.body).toEqual({ success: true, message: 'Logged out' });
    const after = await t.get('/auth/verify', { token });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: 'Invalid token' });

    // password change makes every older token 401
    const older1 = await t.login('asha.verma@college.edu', 'first-password');
    const older2 = await t.login('asha.verma@college.edu', 'first-password');
    // used once (remembered by the token-holder cache), then ended by the change
    expect((await t.get('/auth/verify', { token: older2 })).status).toBe(200);
    const changed = await t.post(
      '/auth/password',
      { currentPassword: 'first-password', newPassword: 'second-password' },
      { token: older1 },
    );
    expect(changed.status).toBe(200);
    for (const old of [older1, older2]) {
      const res = await t.get('/auth/verify', { token: old });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Invalid token' });
    }
    expect((await t.get('/auth/verify', { token: changed.body.token })).status).toBe(200);
    expect(
      (await t.post('/auth/login', { email: 'asha.verma@college.edu', password: 'first-password' })).status,
    ).toBe(401);
    expect(await t.login('asha.verma@college.edu', 'second-password')).toEqual(expect.any(String));
  });

  describe('login errors', () => {
    it('answers 404 for an unknown email and 401 for a wrong password', async () => {
      const unknown = await t.post('/auth/login', { email: 'nobody@test.local', password: 'whatever1' });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ success: false, error: 'User not found' });
      const wrong = await t.post('/auth/login', { email: ADMIN.email, password: 'not-the-password' });
      expect(wrong.status).toBe(401);
      expect(wrong.body).toEqual({ success: false, error: 'Invalid email or password' });
    });

    it('refuses a rejected member with 403', async () => {
      const member = await t.member();
      const admin = await t.adminToken();
      expect((await t.put(`/users/${member.id}/reject`, undefined, { token: admin })).status).toBe(200);
      const res = await t.post('/auth/login', { email: member.email, password: member.password });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ success: false, error: 'Account rejected' });
      // and the token they held before rejection is dead
      expect((await t.get('/auth/verify', { token: member.token })).body).toEqual({ error: 'Invalid token' });
    });

    it('validates the login body', async () => {
      const res = await t.post('/auth/login', { email: 'not-an-email', password: 'x', extra: 1 });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Validation failed');
      expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['email', 'extra']);
    });
  });

  describe('registration errors change nothing', () => {
    const valid = {
      email: 'ravi@test.local',
      password: 'ravi-password',
      fullName: 'Ravi',
      collegeId: 'C1',
      room: 'A-1',
      phone: '9876500000',
    };

    it.each([
      ['missing fields', { email: 'x@test.local' }, ['password', 'fullName', 'collegeId', 'room', 'phone']],
      ['wrong types', { ...valid, fullName: 42, room: ['A'] }, ['fullName', 'room']],
      ['an unknown field', { ...valid, role: 'admin' }, ['role']],
      ['a bad phone', { ...valid, phone: '+1-5551234567' }, ['phone']],
      ['a short phone', { ...valid, phone: '98765' }, ['phone']],
      ['a bad email', { ...valid, email: 'ravi@' }, ['email']],
      ['a short password', { ...valid, password: 'short' }, ['password']],
      ['a blank name', { ...valid, fullName: '   ' }, ['fullName']],
      ['a NUL in the name', { ...valid, fullName: 'Ra\u0000vi' }, ['fullName']],
      [
        'control characters in other text',
        { ...valid, collegeId: 'C\u00011', room: 'A\n1' },
        ['collegeId', 'room'],
      ],
      ['a NUL in the password', { ...valid, password: 'ravi-pass\u0000word' }, ['password']],
      // 40 characters, 80 bytes: bcrypt would read only the first 72 bytes
      ['a password over 72 bytes', { ...valid, password: 'é'.repeat(40) }, ['password']],
      ['a null field', { ...valid, fullName: null }, ['fullName']],
    ])('400 for %s', async (_case, body, fields) => {
      const res = await t.post('/auth/register', body);
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.error).toBe('Validation failed');
      expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual([...fields].sort());
      expect((await t.post('/auth/login', { email: valid.email, password: valid.password })).status).toBe(
        404,
      );
    });

    it('409 for a duplicate email, whatever its case', async () => {
      expect((await t.post('/auth/register', valid)).status).toBe(201);
      const dup = await t.post('/auth/register', { ...valid, email: 'RAVI@test.local', fullName: 'Other' });
      expect(dup.status).toBe(409);
      expect(dup.body).toEqual({ success: false, error: 'Email already registered' });
    });

    it('lets exactly one of two simultaneous registrations of an email through', async () => {
      const body = { ...valid, email: 'twin@test.local' };
      const statuses = (
        await Promise.all([t.post('/auth/register', body), t.post('/auth/register', body)])
      ).map((r) => r.status);
      expect(statuses.sort()).toEqual([201, 409]);
    });

    it('400 for a body that is not JSON, 413 for one too large', async () => {
      const malformed = await t.request('POST', '/auth/register', {
        body: '{"email":',
        headers: { 'content-type': 'application/json' },
      });
      expect(malformed.status).toBe(400);
      expect(malformed.body.success).toBe(false);
      const huge = await t.post('/auth/register', { ...valid, fullName: 'x'.repeat(200 * 1024) });
      expect(huge.status).toBe(413);
      expect(huge.body).toEqual({ success: false, error: 'Request body is too large' });
    });
  });

  it('names the field with the NUL and says why', async () => {
    const res = await t.post('/auth/register', {
      email: 'nul@test.local',
      password: 'nul-password',
      fullName: 'Nul\u0000Name',
      collegeId: 'C9',
      room: 'A-9',
      phone: '9876500009',
    });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      { field: 'fullName', message: 'fullName must not contain control characters' },
    ]);
  });

  it('accepts a password of exactly 72 bytes, and counts bytes rather than characters', async () => {
    const base = { fullName: 'Byte Counter', collegeId: 'C8', room: 'A-8', phone: '9876500008' };
    const seventyTwoBytes = 'é'.repeat(36); // 36 characters, 72 bytes
    expect(
      (await t.post('/auth/register', { ...base, email: 'bytes@test.local', password: seventyTwoBytes }))
        .status,
    ).toBe(201);
    const tooLong = await t.post('/auth/register', {
      ...base,
      email: 'bytes2@test.local',
      password: `${seventyTwoBytes}a`,
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.details).toEqual([
      { field: 'password', message: expect.stringMatching(/at most 72 bytes/) },
    ]);
  });

  describe('tokens', () => {
    let member: Awaited<ReturnType<TestApp['member']>>;
    beforeAll(async () => {
      member = await t.member();
    });

    it('401 No token without a bearer token', async () => {
      for (const headers of [{}, { authorization: 'Basic abc' }, { authorization: 'Bearer' }] as Record<
        string,
        string
      >[]) {
        const res = await t.get('/auth/verify', { headers });
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'No token' });
      }
    });

    it('401 Invalid token for malformed, expired, wrongly signed and alg:none tokens', async () => {
      const claims = decodePayload(member.token);
      const now = Math.floor(Date.now() / 1000);
      const bad = [
        'not-a-jwt',
        'a.b.c',
        hs256({ ...claims, iat: now - 8 * 86400, exp: now - 86400 }, TEST_JWT_SECRET),
        hs256(claims, 'some-other-secret-that-is-long-enough-000000'),
        unsignedAlgNone(claims),
        hs256({ ...claims, sub: '00000000-0000-4000-8000-000000000000' }, TEST_JWT_SECRET),
        hs256({ ...claims, ver: claims.ver + 1 }, TEST_JWT_SECRET),
        hs256(claims, TEST_JWT_SECRET, { alg: 'HS512', typ: 'JWT' }),
        // signed with the real secret, but not as the service signs: a lifetime past 7 days, a future issue time
        hs256({ ...claims, iat: now, exp: now + 100 * 365 * 86400 }, TEST_JWT_SECRET),
        hs256({ ...claims, iat: now, exp: now + 7 * 86400 + 1 }, TEST_JWT_SECRET),
        hs256({ ...claims, iat: now + 3600, exp: now + 3600 + 86400 }, TEST_JWT_SECRET),
        hs256({ ...claims, iat: undefined }, TEST_JWT_SECRET),
      ];
      for (const token of bad) {
        const res = await t.get('/auth/verify', { token });
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'Invalid token' });
      }
      // the genuine token still works, so the failures above were about the tokens
      expect((await t.get('/auth/verify', { token: member.token })).status).toBe(200);
    });

    it('refuses a token once it has expired, though it was accepted a moment before', async () => {
      const exp = Math.floor(Date.now() / 1000) + 2;
      const token = hs256({ ...decodePayload(member.token), exp }, TEST_JWT_SECRET);
      expect((await t.get('/auth/verify', { token })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, exp * 1000 - Date.now() + 50));
      const res = await t.get('/auth/verify', { token });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Invalid token' });
    });

    it('403 Forbidden for a role check a student fails; admin passes every role check', async () => {
      const res = await t.get('/users', { token: member.token });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'Forbidden' });
      const admin = await t.adminToken();
      expect((await t.get('/users', { token: admin })).status).toBe(200);
    });

    it('sees a role change at once, without a new token', async () => {
      const manager = await t.member();
      expect((await t.get(`/users/${member.id}`, { token: manager.token })).status).toBe(403);
      const admin = await t.adminToken();
      await t.put(`/users/${manager.id}/role`, { role: 'manager' }, { token: admin });
      expect((await t.get(`/users/${member.id}`, { token: manager.token })).status).toBe(200);
      // rejected: the token just used is refused at once
      await t.put(`/users/${manager.id}/reject`, undefined, { token: admin });
      expect((await t.get(`/users/${member.id}`, { token: manager.token })).status).toBe(401);
    });

    it('rejects a wrong current password on change and keeps the old password', async () => {
      const res = await t.post(
        '/auth/password',
        { currentPassword: 'nope-nope', newPassword: 'another-pass' },
        { token: member.token },
      );
      expect(res.status).toBe(401);
      expect((await t.get('/auth/verify', { token: member.token })).status).toBe(200);
      expect(await t.login(member.email, member.password)).toEqual(expect.any(String));
    });

    it('refuses a new password over 72 bytes, which bcrypt would truncate, and keeps the old one', async () => {
      const res = await t.post(
        '/auth/password',
        { currentPassword: member.password, newPassword: 'é'.repeat(40) },
        { token: member.token },
      );
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([
        { field: 'newPassword', message: expect.stringMatching(/newPassword must be at most 72 bytes/) },
      ]);
      expect(await t.login(member.email, member.password)).toEqual(expect.any(String));
    });
  });
});

describe('Password hashing is bounded (BCRYPT_CONCURRENCY, BCRYPT_QUEUE_TIMEOUT_MS)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ BCRYPT_CONCURRENCY: '1', BCRYPT_QUEUE_TIMEOUT_MS: '100' });
  }, 180_000);
  afterAll(() => t.close());

  it('answers a login storm beyond the queue deadline 503 with Retry-After, and the others as usual', async () => {
    await t.adminToken();
    const storm = await Promise.all(
      Array.from({ length: 12 }, () =>
        t.post('/auth/login', { email: ADMIN.email, password: ADMIN.password }),
      ),
    );
    const statuses = storm.map((r) => r.status);
    // one hash at a time (~60 ms each) and 100 ms of waiting at most: some get through, the rest are refused early
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    const refused = storm.filter((r) => r.status === 503);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    for (const res of refused) {
      expect(res.body).toEqual({ success: false, error: 'The service is busy; try again shortly' });
      expect(res.headers['retry-after']).toBe('1');
    }
    // once the storm has passed, a login works again
    expect((await t.post('/auth/login', { email: ADMIN.email, password: ADMIN.password })).status).toBe(200);
  });
});
