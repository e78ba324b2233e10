import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { FIRST_MESS_ID, inMess } from '../../src/common/tenancy/mess-scope';
import { Database } from '../../src/database/database';
import { PasswordResetListener } from '../../src/modules/notifications/password-reset.listener';
import { TestApp } from '../support/app';
import { MailServer } from '../support/mail-server';

const RESET_LINK = /https:\/\/mess\.example\.edu\/app\/reset-password\?token=([A-Za-z0-9_-]{43})\b/;
const INVALID = 'This password-reset link is invalid, expired or already used';

describe('Password reset: a forgotten password set anew through a mailed one-time link', () => {
  const mail = new MailServer();
  let t: TestApp;

  beforeAll(async () => {
    await mail.start();
    t = await TestApp.start({
      ...mail.env(),
      NOTIFY_WORKER_ENABLED: 'true',
      NOTIFY_WORKER_POLL_SECONDS: '1',
      PUBLIC_URL: 'https://mess.example.edu/app/',
      LOGIN_RATE_LIMIT_PER_EMAIL: '3',
    });
  });
  afterAll(async () => {
    await t?.close();
    await mail.stop();
  });

  /** The token of the next mail to `email` (waits for it: the queue's worker sends it). */
  const nextLink = async (email: string): Promise<string> => {
    const before = mail.to(email).length;
    while (mail.to(email).length <= before) await mail.waitFor(mail.received.length + 1);
    const message = mail.to(email)[before];
    expect(message.subject).toMatch(/Set a new password/);
    const match = RESET_LINK.exec(message.text);
    expect(match).not.toBeNull();
    expect(message.html).toContain(match![0]);
    return match![1];
  };

  const tokenRows = async (): Promise<number> => {
    const result = await t.app
      .get(Database)
      .db.execute(sql`select count(*)::int as n from password_reset_tokens`);
    return (result as unknown as { rows: { n: number }[] }).rows[0].n;
  };

  it('mails a link; the new password logs in, the old one and every earlier token are refused; the link works once', async () => {
    const asha = await t.member('student', { email: 'asha.reset@college.edu' });
    const before = await t.get('/auth/verify', { token: asha.token });
    expect(before.status).toBe(200);

    const forgot = await t.post('/auth/password/forgot', { email: '  Asha.Reset@College.EDU ' });
    expect(forgot.status).toBe(200);
    const token = await nextLink('asha.reset@college.edu');
    // Stored hashed: the token itself is nowhere in the table.
    const stored = await t.app
      .get(Database)
      .db.execute(sql`select token_hash from password_reset_tokens where user_id = ${asha.id}`);
    expect((stored as unknown as { rows: { token_hash: string }[] }).rows).toEqual([
      { token_hash: createHash('sha256').update(token).digest('hex') },
    ]);

    // the member's notification history shows the mail, not its token
    const history = await t.get('/notifications', { token: asha.token });
    expect(history.status).toBe(200);
    const shown = history.body.notifications.find((n: { type: string }) => n.type === 'PASSWORD_RESET');
    expect(shown.content).toContain('reset-password?token=(sent by email only)');
    expect(JSON.stringify(history.body)).not.toContain(token);

    const reset = await t.post('/auth/password/reset', { token, newPassword: 'a-brand-new-password' });
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ success: true, message: expect.stringMatching(/Password set/) });

    expect(
      (await t.post('/auth/login', { email: asha.email, password: 'a-brand-new-password' })).status,
    ).toBe(200);
    const old = await t.post('/auth/login', { email: asha.email, password: asha.password });
    expect(old.status).toBe(401);
    expect((await t.get('/auth/verify', { token: asha.token })).status).toBe(401);

    const again = await t.post('/auth/password/reset', { token, newPassword: 'yet-another-password' });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({
      success: false,
      error: INVALID,
      details: [{ field: 'token', message: INVALID }],
    });
    expect(
      (await t.post('/auth/login', { email: asha.email, password: 'a-brand-new-password' })).status,
    ).toBe(200);
    // the member's trail says their password was reset, by them
    const audited = await inMess(FIRST_MESS_ID, () =>
      t.app
        .get(Database)
        .db.execute(
          sql`select actor_id, action from audit_events where entity = 'user' and entity_id = ${asha.id}`,
        ),
    );
    expect((audited as unknown as { rows: unknown[] }).rows).toEqual([
      { actor_id: asha.id, action: 'password-reset' },
    ]);
  });

  it('answers an unknown email exactly as a known one, and mails nothing', async () => {
    const ravi = await t.member('student', { email: 'ravi.reset@college.edu' });
    const rowsBefore = await tokenRows();
    const unknown = await t.post('/auth/password/forgot', { email: 'nobody.here@college.edu' });
    await t.app.get(PasswordResetListener).idle();
    expect(await tokenRows()).toBe(rowsBefore);

    const known = await t.post('/auth/password/forgot', { email: ravi.email });
    expect(unknown.status).toBe(200);
    expect(known.status).toBe(200);
    expect(unknown.body).toEqual(known.body);
    expect(unknown.headers['content-length']).toBe(known.headers['content-length']);
    await nextLink(ravi.email);
    expect(mail.to('nobody.here@college.edu')).toEqual([]);
  });

  it('refuses an expired token and an unknown one with the same 400', async () => {
    const meera = await t.member('student', { email: 'meera.reset@college.edu' });
    await t.post('/auth/password/forgot', { email: meera.email });
    const token = await nextLink(meera.email);
    const hash = createHash('sha256').update(token).digest('hex');
    await t.app
      .get(Database)
      .db.execute(
        sql`update password_reset_tokens set expires_at = now() - interval '1 second' where token_hash = ${hash}`,
      );
    const expired = await t.post('/auth/password/reset', { token, newPassword: 'a-brand-new-password' });
    expect(expired.status).toBe(400);
    expect(expired.body.error).toBe(INVALID);

    const unknown = await t.post('/auth/password/reset', {
      token: 'A'.repeat(43),
      newPassword: 'a-brand-new-password',
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual(expired.body);
    expect((await t.post('/auth/login', { email: meera.email, password: meera.password })).status).toBe(200);
  });

  it('refuses a bad new password naming newPassword, and keeps the token good', async () => {
    const dev = await t.member('student', { email: 'dev.reset@college.edu' });
    await t.post('/auth/password/forgot', { email: dev.email });
    const token = await nextLink(dev.email);
    const short = await t.post('/auth/password/reset', { token, newPassword: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.details).toEqual([{ field: 'newPassword', message: expect.any(String) }]);
    expect((await t.post('/auth/password/reset', { token, newPassword: 'long-enough-now' })).status).toBe(
      200,
    );
  });

  it('lets an admin send a member the link; a member cannot', async () => {
    const admin = await t.adminToken();
    const kiran = await t.member('student', { email: 'kiran.reset@college.edu' });
    const other = await t.member('student');

    const refused = await t.post(`/users/${kiran.id}/password-reset`, undefined, { token: other.token });
    expect(refused.status).toBe(403);

    const sent = await t.post(`/users/${kiran.id}/password-reset`, undefined, { token: admin });
    expect(sent.status).toBe(202);
    expect(sent.body).toEqual({ success: true, message: expect.any(String) });
    const token = await nextLink(kiran.email);
    const audited = await inMess(FIRST_MESS_ID, () =>
      t.app
        .get(Database)
        .db.execute(sql`select action from audit_events where entity = 'user' and entity_id = ${kiran.id}`),
    );
    expect((audited as unknown as { rows: unknown[] }).rows).toEqual([{ action: 'password-reset-sent' }]);
    expect((await t.post('/auth/password/reset', { token, newPassword: 'chosen-by-kiran' })).status).toBe(
      200,
    );
    expect((await t.post('/auth/login', { email: kiran.email, password: 'chosen-by-kiran' })).status).toBe(
      200,
    );

    const missing = await t.post('/users/00000000-0000-4000-8000-00000000dead/password-reset', undefined, {
      token: admin,
    });
    expect(missing.status).toBe(404);
  });

  it("does not forgive a password guesser's failures: a forgot request is not a successful login", async () => {
    const victim = await t.member('student');
    const guess = () => t.post('/auth/login', { email: victim.email, password: 'wrong-guess-123' });
    const statuses: number[] = [];
    for (let i = 0; i < 2; i += 1) statuses.push((await guess()).status);
    expect((await t.post('/auth/password/forgot', { email: victim.email })).status).toBe(200);
    for (let i = 0; i < 2; i += 1) statuses.push((await guess()).status);
    expect(statuses.slice(0, 2)).toEqual([401, 401]);
    expect(statuses).toContain(429);
  });
});
