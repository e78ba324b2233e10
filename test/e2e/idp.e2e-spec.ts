import { FIRST_MESS_ID } from '../../src/common/tenancy/mess-scope';
import { generateKeyPairSync } from 'node:crypto';
import { TestApp } from '../support/app';
import { LocalIdentityProvider } from '../support/idp';

describe('Identity-provider login (POST /auth/idp)', () => {
  const idp = new LocalIdentityProvider();
  let t: TestApp;

  beforeAll(async () => {
    await idp.start();
    t = await TestApp.start({
      IDP_CLIENT_ID: idp.clientId,
      IDP_CERTS_URL: idp.certsUrl,
      IDP_ALLOWED_DOMAIN: 'college.edu',
    });
  });
  afterAll(async () => {
    await t.close();
    await idp.stop();
  });

  it('creates a pending student on first login, then logs in once approved, like password login', async () => {
    const first = await t.post('/auth/idp', { token: idp.idToken() });
    expect(first.status).toBe(403);
    expect(first.body).toEqual({ success: false, error: 'Account pending approval' });

    const admin = await t.adminToken();
    const pending = await t.get('/users?status=pending', { token: admin });
    const created = pending.body.users.find((u: { email: string }) => u.email === 'meera@college.edu');
    expect(created).toMatchObject({
      fullName: 'Meera Iyer',
      role: 'student',
      status: 'pending',
      idpId: '109876543210987654321',
    });

    // a second first-login does not create a second member
    expect((await t.post('/auth/idp', { token: idp.idToken() })).status).toBe(403);
    expect(
      (await t.get('/users?status=pending', { token: admin })).body.users.filter(
        (u: { email: string }) => u.email === 'meera@college.edu',
      ),
    ).toHaveLength(1);

    await t.put(`/users/${created._id}/approve`, undefined, { token: admin });
    const login = await t.post('/auth/idp', { token: idp.idToken() });
    expect(login.status).toBe(200);
    expect(login.body).toEqual({
      success: true,
      token: expect.any(String),
      user: {
        _id: created._id,
        email: 'meera@college.edu',
        fullName: 'Meera Iyer',
        role: 'student',
        status: 'approved',
        // Extension 2.2 adds the member's mess to the user object.
        mess: { _id: FIRST_MESS_ID, slug: 'main', messName: expect.any(String) },
      },
    });
    expect((await t.get('/auth/verify', { token: login.body.token })).status).toBe(200);
  });

  it('links an approved member with the same verified email', async () => {
    const member = await t.member('student', { email: 'kabir@college.edu' });
    const res = await t.post('/auth/idp', {
      token: idp.idToken({ sub: 'kabir-google-id', email: 'kabir@college.edu', name: 'Kabir' }),
    });
    expect(res.status).toBe(200);
    expect(res.body.user._id).toBe(member.id);
    const admin = await t.adminToken();
    expect((await t.get(`/users/${member.id}`, { token: admin })).body.user.idpId).toBe('kabir-google-id');
  });

  it.each([
    [
      'a token signed by another key',
      () => idp.idToken({}, { key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey }),
    ],
    [
      'an expired token',
      () =>
        idp.idToken({ iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 }),
    ],
    ['another audience', () => idp.idToken({ aud: 'someone-else' })],
    ['another issuer', () => idp.idToken({ iss: 'https://evil.example' })],
    ['an unknown key id', () => idp.idToken({}, { kid: 'nope' })],
    ['another hosted domain', () => idp.idToken({ hd: 'other.edu', sub: 'x1', email: 'x@other.edu' })],
    [
      'an unverified email',
      () => idp.idToken({ email_verified: false, sub: 'x2', email: 'new@college.edu' }),
    ],
    ['garbage', () => 'x'.repeat(40)],
  ])('401 for %s, and no member is created', async (_case, token) => {
    const admin = await t.adminToken();
    const before = (await t.get('/users', { token: admin })).body.pagination.total;
    const res = await t.post('/auth/idp', { token: token() });
    expect(res.status).toBe(401);
    expect(res.body.success).toBe(false);
    expect((await t.get('/users', { token: admin })).body.pagination.total).toBe(before);
  });

  it('400 without a token field', async () => {
    const res = await t.post('/auth/idp', {});
    expect(res.status).toBe(400);
    expect(res.body.details[0].field).toBe('token');
  });
});

describe('Identity-provider login when not configured', () => {
  it('answers 503 with a clear error', async () => {
    const t = await TestApp.start();
    try {
      const res = await t.post('/auth/idp', { token: 'x'.repeat(40) });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ success: false, error: 'Identity-provider login is not configured' });
    } finally {
      await t.close();
    }
  });
});
