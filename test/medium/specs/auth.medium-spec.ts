import { ThrottlerModule } from '@nestjs/throttler';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../../../src/config/app-config';
import { AuthModule } from '../../../src/modules/auth';
import { AuthService } from '../../../src/modules/auth/auth.service';
import { ChangePasswordDto, RegisterDto } from '../../../src/modules/auth/dto/auth.dto';
import {
  PasswordResetService,
  RESET_MAILS_PER_HOUR,
  RESET_TOKEN_INVALID,
} from '../../../src/modules/auth/password-reset.service';
import { TOKEN_LIFETIME_SECONDS, TokenService } from '../../../src/modules/auth/token.service';
import { AuditTrail } from '../../../src/modules/audit-trail';
import { UNCONFIGURED_NAME } from '../../../src/modules/messes';
import { OutboxRelay } from '../../../src/modules/outbox';
import { UserAdministrationService, UsersService } from '../../../src/modules/users';
import { TEST_MEMBER_PASSWORD } from '../../support/members';
import { decodePayload, hs256, unsignedAlgNone } from '../../support/tokens';
import { type MediumContext, type MediumMember, MESS_B_SETUP, newMedium } from '../medium.factory';

/**
 * Signing in and out in two messes: a login issues a real HS256 token that authenticates as the member in their own
 * mess; a logout, a password change or a reset ends that member's tokens and no one else's (nor anyone in the other
 * mess); registration joins the mess the body names; a reset link is mailed in the member's mess and works once.
 * What /auth answers over HTTP: test/e2e/auth.e2e-spec.ts and password-reset.e2e-spec.ts.
 */
describe('Auth (medium): tokens and passwords in two messes', () => {
  let ctx: MediumContext;
  let inB: MediumContext;
  let aAdmin: MediumMember;
  let aStudent: MediumMember;
  let aManager: MediumMember;
  let bAdmin: MediumMember;
  let bStudent: MediumMember;
  let secret: string;

  beforeAll(async () => {
    ctx = await newMedium({
      // The app's rate-limit storage (the reset mails' per-email limit) is the app module's: the in-memory one here.
      imports: [ThrottlerModule.forRoot([{ ttl: 60_000, limit: 100 }]), AuthModule],
    });
    inB = ctx.as(ctx.messes.b);
    aAdmin = await ctx.newMember('admin', { fullName: 'Anu Admin' });
    aStudent = await ctx.newMember('student', { fullName: 'Amar Student' });
    aManager = await ctx.newMember('manager', { fullName: 'Ama Manager' });
    bAdmin = ctx.messes.b.admin!;
    bStudent = await inB.newMember('student', { fullName: 'Bhanu Student' });
    secret = ctx.module.get<AppConfig>(AppConfig).jwtSecret;
  });
  afterAll(() => ctx?.close());

  const login = (at: MediumContext, member: { email: string }, password = TEST_MEMBER_PASSWORD) =>
    at.get(AuthService).login(member.email, password);
  const authenticate = (token: string) => ctx.get(TokenService).authenticate(token);
  /** The mailed links of reset requests delivered from now on, by the outbox's relay (in the member's mess). */
  const resetLinks = async (request: () => Promise<void>) => {
    const recording = ctx.recordEvents(['auth.password-reset-requested']);
    try {
      await request();
      await ctx.get(OutboxRelay).idle();
      return recording.received.map((r) => r.payload);
    } finally {
      recording.stop();
    }
  };
  const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;

  it('logs a member in with a real signed token that authenticates as them, in their own mess', async () => {
    const a = await login(ctx, aStudent);
    expect(a.success).toBe(true);
    expect(a.user).toEqual({
      _id: aStudent.id,
      email: aStudent.email,
      fullName: 'Amar Student',
      role: 'student',
      status: 'approved',
      mess: { _id: ctx.messes.a.id, slug: 'main', messName: UNCONFIGURED_NAME },
    });
    const claims = decodePayload(a.token);
    expect(claims).toMatchObject({ sub: aStudent.id, ver: 0 });
    expect(claims.exp - claims.iat).toBe(TOKEN_LIFETIME_SECONDS);
    expect(await authenticate(a.token)).toMatchObject({
      id: aStudent.id,
      role: 'student',
      messId: ctx.messes.a.id,
      tokenId: claims.jti,
      tokenExpiresAt: new Date(claims.exp * 1000),
    });

    // B's member, logging in wherever the call runs: their own mess, B's name.
    const b = await login(ctx, bStudent);
    expect(b.user.mess).toEqual({ _id: ctx.messes.b.id, slug: 'mess-b', messName: MESS_B_SETUP.messName });
    expect((await authenticate(b.token))?.messId).toBe(ctx.messes.b.id);
  });

  it('refuses an unknown email (404), a wrong password (401), a pending (403) and a rejected member (403)', async () => {
    expect(await ctx.refusal(ctx.get(AuthService).login('nobody@test.local', TEST_MEMBER_PASSWORD))).toEqual({
      status: 404,
      body: expect.objectContaining({ error: 'User not found' }),
    });
    expect(await ctx.refusal(login(ctx, aStudent, 'wrong-password-123'))).toEqual({
      status: 401,
      body: expect.objectContaining({ error: 'Invalid email or password' }),
    });
    const pending = await ctx.get(AuthService).register(
      await ctx.dto(RegisterDto, {
        email: 'Pending.Person@Test.Local',
        password: 'pending-password-1',
        fullName: 'Pending Person',
        collegeId: 'PP001',
        room: 'P-1',
        phone: '9000000011',
      }),
    );
    expect([pending.status, pending.messId]).toEqual(['pending', ctx.messes.a.id]);
    expect(
      await ctx.refusal(ctx.get(AuthService).login('pending.person@test.local', 'pending-password-1')),
    ).toEqual({ status: 403, body: expect.objectContaining({ error: 'Account pending approval' }) });
    await ctx.get(UserAdministrationService).reject(aAdmin.caller, pending.id);
    expect(
      await ctx.refusal(ctx.get(AuthService).login('pending.person@test.local', 'pending-password-1')),
    ).toEqual({ status: 403, body: expect.objectContaining({ error: 'Account rejected' }) });
  });

  it('registers into the mess the body names by slug or id; an unknown mess is 400 naming it, a taken email 409', async () => {
    const body = (email: string, mess?: string) =>
      ctx.dto(RegisterDto, {
        email,
        password: 'newcomer-password-1',
        fullName: `Newcomer ${email}`,
        collegeId: 'NC001',
        room: 'N-1',
        phone: '9000000012',
        ...(mess === undefined ? {} : { mess }),
      });
    const bySlug = await ctx.get(AuthService).register(await body('by.slug@test.local', 'MESS-B'));
    const byId = await ctx.get(AuthService).register(await body('by.id@test.local', ctx.messes.b.id));
    expect([bySlug.messId, bySlug.status, byId.messId]).toEqual([
      ctx.messes.b.id,
      'pending',
      ctx.messes.b.id,
    ]);
    const unknown = await ctx.refusal(ctx.get(AuthService).register(await body('lost@test.local', 'mess-z')));
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ details: [expect.objectContaining({ field: 'mess' })] });
    const taken = await ctx.refusal(ctx.get(AuthService).register(await body('BY.SLUG@test.local')));
    expect(taken).toEqual({
      status: 409,
      body: expect.objectContaining({ error: 'Email already registered' }),
    });
    // B's roster has the two newcomers pending; A's has neither.
    const pendingIn = async (at: MediumContext) =>
      (await at.get(UsersService).roster({ limit: 50, offset: 0, status: 'pending' })).rows.map((u) => u.id);
    expect((await pendingIn(inB)).sort()).toEqual([bySlug.id, byId.id].sort());
    expect(await pendingIn(ctx)).not.toContain(bySlug.id);
    expect(await pendingIn(ctx)).not.toContain(byId.id);
  });

  it('refuses a token that is tampered with, signed with another secret, unsigned, too long-lived or not yet issued', async () => {
    const good = (await login(ctx, aStudent)).token;
    expect(await authenticate(good)).toBeDefined();
    const [header, payload, signature] = good.split('.');
    const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: aStudent.id, ver: 0, iat: now, exp: now + 3600, jti: randomUUID() };
    // What we sign, the secret known: accepted; each alteration below is refused.
    expect((await authenticate(hs256(claims, secret)))?.id).toBe(aStudent.id);
    const refused = [
      `${header}.${payload}.${flipped}`,
      hs256(claims, 'another-secret-that-is-long-enough-for-hs256-xyz'),
      unsignedAlgNone(claims),
      hs256({ ...claims, exp: now + TOKEN_LIFETIME_SECONDS + 60 }, secret),
      hs256({ ...claims, iat: now + 3600, exp: now + 7200 }, secret),
      hs256({ ...claims, exp: now - 1 }, secret),
      hs256({ ...claims, sub: 'not-a-uuid' }, secret),
      hs256({ ...claims, sub: randomUUID() }, secret),
      'not.a.token',
    ];
    expect(await Promise.all(refused.map(authenticate))).toEqual(refused.map(() => undefined));
  });

  it("a logout revokes that token only: the member's other token, and B's member's, still work", async () => {
    const first = (await login(ctx, aStudent)).token;
    const second = (await login(ctx, aStudent)).token;
    const bToken = (await login(ctx, bStudent)).token;
    const caller = (await authenticate(first))!;
    expect(caller.id).toBe(aStudent.id);
    await ctx.get(AuthService).logout(caller);
    expect(await authenticate(first)).toBeUndefined();
    expect((await authenticate(second))?.id).toBe(aStudent.id);
    expect((await authenticate(bToken))?.id).toBe(bStudent.id);
    // Twice with one token is fine.
    await expect(ctx.get(AuthService).logout(caller)).resolves.toBeUndefined();
    expect(await authenticate(first)).toBeUndefined();
  });

  it('a password change ends every earlier token of the member and returns a working one; a wrong current password is 401', async () => {
    const member = await inB.newMember('student', { fullName: 'Bela Changer' });
    const bOther = (await login(inB, bStudent)).token;
    const old = (await login(inB, member)).token;
    const caller = (await authenticate(old))!;
    const wrong = await inB.refusal(
      inB.get(AuthService).changePassword(
        caller,
        await inB.dto(ChangePasswordDto, {
          currentPassword: 'not-mine-123',
          newPassword: 'brand-new-pass-1',
        }),
      ),
    );
    expect(wrong).toEqual({
      status: 401,
      body: expect.objectContaining({ error: 'Current password is incorrect' }),
    });
    expect((await authenticate(old))?.id).toBe(member.id);

    const fresh = await inB.get(AuthService).changePassword(
      caller,
      await inB.dto(ChangePasswordDto, {
        currentPassword: TEST_MEMBER_PASSWORD,
        newPassword: 'brand-new-pass-1',
      }),
    );
    expect(decodePayload(fresh).ver).toBe(1);
    expect(await authenticate(old)).toBeUndefined();
    expect(await authenticate(fresh)).toMatchObject({ id: member.id, messId: ctx.messes.b.id });
    expect((await inB.refusal(login(inB, member))).status).toBe(401);
    expect((await login(inB, member, 'brand-new-pass-1')).user._id).toBe(member.id);
    // Nobody else's token changed.
    expect((await authenticate(bOther))?.id).toBe(bStudent.id);
  });

  it("a role change or rejection takes effect on the next check of the member's token, without a new one", async () => {
    const member = await ctx.newMember('student', { fullName: 'Ravi Rejected' });
    const token = (await login(ctx, member)).token;
    expect((await authenticate(token))?.role).toBe('student');
    await ctx.get(UserAdministrationService).changeRole(aAdmin.caller, member.id, 'treasurer');
    expect((await authenticate(token))?.role).toBe('treasurer');
    await ctx.get(UserAdministrationService).reject(aAdmin.caller, member.id);
    expect(await authenticate(token)).toBeUndefined();
  });

  it("mails a reset link in the member's mess; it sets the password once and ends every earlier token", async () => {
    const bToken = (await login(inB, bStudent)).token;
    const aToken = (await login(ctx, aStudent)).token;
    // Forgot runs in no particular mess (a public route): the event is in B's member's mess.
    const mailed = await resetLinks(() => ctx.get(PasswordResetService).forgot(bStudent.email.toUpperCase()));
    expect(mailed).toHaveLength(1);
    expect(mailed[0]).toMatchObject({ userId: bStudent.id, messId: ctx.messes.b.id, ttlMinutes: 30 });
    expect(mailed[0].link).toMatch(/\/reset-password\?token=[A-Za-z0-9_-]{43}$/);
    const token = tokenOf(mailed[0].link);

    const user = await ctx.get(PasswordResetService).reset(token, 'reset-password-long-1');
    expect([user.id, user.messId, user.tokenVersion]).toEqual([bStudent.id, ctx.messes.b.id, 1]);
    expect(await authenticate(bToken)).toBeUndefined();
    expect((await login(inB, bStudent, 'reset-password-long-1')).user._id).toBe(bStudent.id);
    expect((await inB.refusal(login(inB, bStudent))).status).toBe(401);
    // A's member is untouched.
    expect((await authenticate(aToken))?.id).toBe(aStudent.id);

    const again = await ctx.refusal(ctx.get(PasswordResetService).reset(token, 'another-password-1'));
    expect(again).toEqual({
      status: 400,
      body: expect.objectContaining({
        error: RESET_TOKEN_INVALID,
        details: [expect.objectContaining({ field: 'token' })],
      }),
    });
    // The reset is in B's trail, by the member, and not in A's.
    const trail = async (at: MediumContext) =>
      (
        await at.get(AuditTrail).page({ limit: 50, offset: 0, entity: 'user', entityId: bStudent.id })
      ).rows.map((r) => [r.messId, r.action, r.actorId]);
    expect(await trail(inB)).toEqual([[ctx.messes.b.id, 'password-reset', bStudent.id]]);
    expect(await trail(ctx)).toEqual([]);
  });

  it('refuses an expired link and an unknown one alike (400); a newer password ends older links', async () => {
    const member = await ctx.newMember('student', { fullName: 'Esha Expired' });
    const [expired] = await resetLinks(() => ctx.get(PasswordResetService).forgot(member.email));
    ctx.clock.advance(31 * 60_000);
    try {
      const late = await ctx.refusal(
        ctx.get(PasswordResetService).reset(tokenOf(expired.link), 'late-password-1'),
      );
      expect([late.status, (late.body as { error: string }).error]).toEqual([400, RESET_TOKEN_INVALID]);
    } finally {
      ctx.clock.advance(-31 * 60_000);
    }
    const unknown = await ctx.refusal(
      ctx.get(PasswordResetService).reset('made-up-token', 'late-password-1'),
    );
    expect([unknown.status, (unknown.body as { error: string }).error]).toEqual([400, RESET_TOKEN_INVALID]);

    const links = [
      ...(await resetLinks(() => ctx.get(PasswordResetService).forgot(member.email))),
      ...(await resetLinks(() => ctx.get(PasswordResetService).forgot(member.email))),
    ];
    expect(links).toHaveLength(2);
    await ctx.get(PasswordResetService).reset(tokenOf(links[1].link), 'second-link-pass-1');
    expect(
      (await ctx.refusal(ctx.get(PasswordResetService).reset(tokenOf(links[0].link), 'x-password-12')))
        .status,
    ).toBe(400);
    expect((await login(ctx, member, 'second-link-pass-1')).user._id).toBe(member.id);
  });

  it('mails nothing for an unknown or rejected email, nor past the hourly limit per email', async () => {
    expect(await resetLinks(() => ctx.get(PasswordResetService).forgot('nobody.here@test.local'))).toEqual(
      [],
    );
    const rejected = await ctx.newMember('student', { fullName: 'Rita Rejected' });
    await ctx.get(UserAdministrationService).reject(aAdmin.caller, rejected.id);
    expect(await resetLinks(() => ctx.get(PasswordResetService).forgot(rejected.email))).toEqual([]);

    const busy = await ctx.newMember('student', { fullName: 'Bushra Busy' });
    const mailed = await resetLinks(async () => {
      for (let i = 0; i < RESET_MAILS_PER_HOUR + 2; i += 1)
        await ctx.get(PasswordResetService).forgot(busy.email);
    });
    expect(mailed).toHaveLength(RESET_MAILS_PER_HOUR);
    expect(new Set(mailed.map((m) => m.userId))).toEqual(new Set([busy.id]));
  });

  it("an admin may send B's member a link (audited in B); A's manager may not (404), nor for an unknown member", async () => {
    const mailed = await resetLinks(() => ctx.get(PasswordResetService).sendFor(aAdmin.caller, bStudent.id));
    expect(mailed.map((m) => [m.userId, m.messId])).toEqual([[bStudent.id, ctx.messes.b.id]]);
    const sent = await inB
      .get(AuditTrail)
      .page({ limit: 50, offset: 0, entity: 'user', entityId: bStudent.id, actorId: aAdmin.id });
    expect(sent.rows.map((r) => [r.messId, r.action])).toEqual([[ctx.messes.b.id, 'password-reset-sent']]);
    expect(
      await ctx.get(AuditTrail).page({ limit: 50, offset: 0, entity: 'user', entityId: bStudent.id }),
    ).toEqual({ rows: [], total: 0 });

    const refused = await resetLinks(async () => {
      expect(
        (await ctx.refusal(ctx.get(PasswordResetService).sendFor(aManager.caller, bStudent.id))).status,
      ).toBe(404);
      expect(
        (await ctx.refusal(ctx.get(PasswordResetService).sendFor(aAdmin.caller, randomUUID()))).status,
      ).toBe(404);
    });
    expect(refused).toEqual([]);
    // B's own admin, in B, for their member: mailed.
    expect(
      await resetLinks(() => inB.get(PasswordResetService).sendFor(bAdmin.caller, bStudent.id)),
    ).toHaveLength(1);
  });
});
