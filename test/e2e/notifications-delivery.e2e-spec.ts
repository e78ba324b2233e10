import { eq, sql } from 'drizzle-orm';
import { FIRST_MESS_ID, inMess } from '../../src/common/tenancy/mess-scope';
import { localParts } from '../../src/common/time/dates';
import { Database } from '../../src/database/database';
import { DeliveryErrors } from '../../src/modules/notifications/channels/delivery-error';
import { NotificationsRepository } from '../../src/modules/notifications/notifications.repository';
import { messagingUsage } from '../../src/modules/notifications/notifications.schema';
import { ADMIN, TestApp } from '../support/app';
import {
  type ProviderError,
  ProviderErrors,
  SANDBOX_NUMBER,
  TEST_ACCOUNT_SID,
  TEST_AUTH_TOKEN,
} from '../support/messaging-provider';
import { fixClock, notificationsOf, restoreClock, tickSchedulesAt } from '../support/notifications';
import { bothProvidersSuite, type Logs, SMTP_SECRETS } from '../support/notifications-suite';

/**
 * Delivery: how a notification is sent on each channel, the fall back to email, what becomes of a WhatsApp message,
 * the retries through an outage, until the deadline and of lost jobs; the history; no secret in the logs.
 */
describe('Notifications: delivery, fallback, WhatsApp outcomes and retries', () => {
  const suite = bothProvidersSuite();
  const { mail, provider, memberWith, historyOf, notifyOne } = suite;
  let logs: Logs;
  let t: TestApp;
  let n: ReturnType<typeof notificationsOf>;
  beforeAll(() => {
    ({ logs, t, n } = suite);
  });

  describe('delivery', () => {
    it('sends WhatsApp as the title, a blank line and the content, from whatsapp:<sender>', async () => {
      const member = await memberWith('whatsapp');
      const row = await notifyOne(member.id);
      await n.settle();
      const [message] = provider.sentTo(member.phone);
      expect(message).toMatchObject({
        from: `whatsapp:${SANDBOX_NUMBER}`,
        to: `whatsapp:${member.phone}`,
        body: `${row.title}\n\n${row.content}`,
        accountSid: TEST_ACCOUNT_SID,
        authorization: { username: TEST_ACCOUNT_SID, password: TEST_AUTH_TOKEN },
      });
      const [stored] = await historyOf(member);
      expect(stored).toMatchObject({
        _id: row.id,
        type: 'DISCREPANCY_ALERT',
        status: 'sent',
        channels: ['whatsapp'],
        deliveredVia: 'whatsapp',
        fallbackUsed: false,
        attempts: 1,
        lastError: null,
      });
      expect(mail.to(member.email)).toHaveLength(0);
    });

    it('sends email as the HTML template with every value escaped, and a plain-text part', async () => {
      const member = await memberWith('email');
      const row = await notifyOne(member.id);
      await n.settle();
      const [message] = mail.to(member.email);
      expect(message.from).toBe('mess.office@gmail.com');
      expect(message.headers.from).toContain('mess.office@gmail.com');
      expect(message.auth).toEqual({ username: 'mess.office@gmail.com', password: 'abcdefghijklmnop' });
      expect(message.subject).toBe(`Hostel Mess: ${row.title}`);
      expect(message.html).toContain('<!doctype html>');
      expect(message.html).toContain(`Alert &lt;for&gt; ${member.id.slice(0, 4)}`);
      expect(message.html).toContain('Dal &amp; rice were marked<br>twice.');
      expect(message.html).not.toContain('<for>');
      expect(message.text).toContain(`${row.title}\n\n${row.content}`);
      expect(provider.sentTo(member.phone)).toHaveLength(0);
      expect((await historyOf(member))[0]).toMatchObject({
        status: 'sent',
        channels: ['email'],
        deliveredVia: 'email',
      });
    });

    it('sends a type without WhatsApp support by email, whatever the member prefers', async () => {
      const member = await memberWith('whatsapp');
      await notifyOne(member.id, 'EXPENSE_ADDED');
      await n.settle();
      expect(provider.requests.filter((r) => r.to === `whatsapp:${member.phone}`)).toHaveLength(0);
      expect(mail.to(member.email)).toHaveLength(1);
      expect((await historyOf(member))[0]).toMatchObject({
        channels: ['email'],
        fallbackUsed: false,
        status: 'sent',
      });
    });

    const failures: [string, (phone: string) => ProviderError, string][] = [
      [
        'the phone has not joined the sandbox (63015)',
        ProviderErrors.notJoinedSandbox,
        DeliveryErrors.notRegistered,
      ],
      ['the sandbox registration lapsed (63016)', ProviderErrors.outsideWindow, DeliveryErrors.notRegistered],
      ['the number is invalid (21211)', ProviderErrors.invalidNumber, DeliveryErrors.invalidNumber],
      ['the provider rate limits (429 / 20429)', ProviderErrors.rateLimited, DeliveryErrors.rateLimited],
      ['the channel rate limits (63018)', ProviderErrors.channelRateLimited, DeliveryErrors.rateLimited],
      [
        'the account is disabled (401 / 20003)',
        ProviderErrors.accountDisabled,
        DeliveryErrors.accountDisabled,
      ],
      ['the provider is down (503)', ProviderErrors.unavailable, DeliveryErrors.messagingUnavailable(503)],
    ];

    it.each(failures)(
      'on `both`, when %s: falls back to email, logs it, fallbackUsed',
      async (_, error, text) => {
        const member = await memberWith('both');
        provider.failFor(member.phone, error(member.phone));
        logs.clear();
        const row = await notifyOne(member.id);
        await n.settle();

        expect(provider.requests.filter((r) => r.to === `whatsapp:${member.phone}`)).toHaveLength(1);
        expect(provider.sentTo(member.phone)).toHaveLength(0);
        const emails = mail.to(member.email);
        expect(emails).toHaveLength(1);
        expect(emails[0].subject).toBe(`Hostel Mess: ${row.title}`);

        const [stored] = await historyOf(member);
        expect(stored).toMatchObject({
          _id: row.id,
          status: 'sent',
          fallbackUsed: true,
          channels: ['whatsapp', 'email'],
          deliveredVia: 'email',
          lastError: text,
          attempts: 1,
        });
        const lines = logs.of('Notifications').filter((l) => l.text.includes(row.id));
        expect(lines.map((l) => `${l.level}: ${l.message}`)).toEqual([
          'warn: WhatsApp send failed',
          'log: Falling back to email',
          'log: Fallback email sent',
        ]);
        expect(lines[0].text).toContain(text);
        // the provider's message quotes the number; the log keeps only its last four digits
        expect(logs.all()).not.toContain(member.phone);
        expect(lines[0].text).toContain(member.phone.slice(-4));
      },
    );

    it('on `both`, follows a message the provider accepted until it fails (63015), then falls back to email', async () => {
      const member = await memberWith('both');
      provider.failFor(member.phone, ProviderErrors.notJoinedSandbox(member.phone));
      // accepted (201 queued); the first two status reads still say queued, the third says failed 63015
      provider.queuedFor(member.phone, 2);
      logs.clear();
      const row = await notifyOne(member.id);
      await n.settle();
      let [stored] = await historyOf(member);
      expect(stored).toMatchObject({ _id: row.id, status: 'queued', attempts: 1, fallbackUsed: false });
      const sid = (await inMess(FIRST_MESS_ID, () => t.app.get(NotificationsRepository).findById(row.id)))!
        .providerMessageId;
      expect(sid).toMatch(/^SM/);
      expect(mail.to(member.email)).toHaveLength(0);
      // the follow-up read waits for its time
      expect(await n.queue.drain()).toBe(0);

      await n.queue.makeRetriesDue();
      await n.settle();
      [stored] = await historyOf(member);
      expect(stored).toMatchObject({ status: 'queued', attempts: 1 });
      expect(mail.to(member.email)).toHaveLength(0);

      await n.queue.makeRetriesDue();
      await n.settle();
      [stored] = await historyOf(member);
      expect(stored).toMatchObject({
        status: 'sent',
        fallbackUsed: true,
        channels: ['whatsapp', 'email'],
        deliveredVia: 'email',
        lastError: DeliveryErrors.notRegistered,
        attempts: 1,
      });
      expect(mail.to(member.email)).toHaveLength(1);
      expect(provider.requests.filter((r) => r.to === `whatsapp:${member.phone}`)).toHaveLength(1);
      expect(provider.statusReads.filter((read) => read === sid)).toHaveLength(3);
      const lines = logs.of('Notifications').filter((l) => l.text.includes(row.id));
      expect(lines.map((l) => `${l.level}: ${l.message}`)).toEqual([
        'warn: WhatsApp send failed',
        'log: Falling back to email',
        'log: Fallback email sent',
      ]);
      expect(lines[0].text).toContain('63015');
      // nothing left to do
      await n.queue.makeRetriesDue();
      expect(await n.settle()).toBe(0);
    });

    it('on `whatsapp`, a message that later fails (63016) ends failed with the sandbox text, and gives its allowance back', async () => {
      const database = t.app.get(Database);
      const month = localParts(new Date(), 'Asia/Kolkata').date.slice(0, 7);
      const usage = async () =>
        (await database.db.select().from(messagingUsage).where(eq(messagingUsage.month, month)))[0]?.sent ??
        0;
      const member = await memberWith('whatsapp');
      provider.failFor(member.phone, ProviderErrors.outsideWindow());
      provider.queuedFor(member.phone, 1);
      const before = await usage();
      await notifyOne(member.id);
      await n.settle();
      expect((await historyOf(member))[0]).toMatchObject({ status: 'queued' });
      expect(await usage()).toBe(before + 1);
      await n.queue.makeRetriesDue();
      await n.settle();
      expect((await historyOf(member))[0]).toMatchObject({
        status: 'failed',
        fallbackUsed: false,
        channels: ['whatsapp'],
        lastError: DeliveryErrors.notRegistered,
      });
      expect(DeliveryErrors.notRegistered).toMatch(/not registered.*sandbox.*72 hours/);
      expect(mail.to(member.email)).toHaveLength(0);
      expect(await usage()).toBe(before);
    });

    it('counts a message that is still on its way at the deadline as failed: `both` falls back, nothing is sent twice', async () => {
      const clock = fixClock(t, new Date());
      try {
        const member = await memberWith('both');
        provider.queuedFor(member.phone, 1_000);
        const row = await notifyOne(member.id);
        await n.settle();
        expect((await historyOf(member))[0]).toMatchObject({ status: 'queued' });
        // 15 minutes (MSG_STATUS_DEADLINE_SECONDS, default 900) after the acceptance
        clock.advance(900_000);
        await n.queue.makeRetriesDue();
        await n.settle();
        expect((await historyOf(member))[0]).toMatchObject({
          _id: row.id,
          status: 'sent',
          fallbackUsed: true,
          deliveredVia: 'email',
          lastError: DeliveryErrors.messagingUnconfirmed,
        });
        expect(provider.requests.filter((r) => r.to === `whatsapp:${member.phone}`)).toHaveLength(1);
        expect(mail.to(member.email)).toHaveLength(1);
      } finally {
        clock.set(new Date());
        restoreClock(t);
      }
    });

    it('falls back when the monthly WhatsApp allowance is used up, and gives back unused reservations', async () => {
      const database = t.app.get(Database);
      const month = localParts(new Date(), 'Asia/Kolkata').date.slice(0, 7);
      const usage = async () =>
        (await database.db.select().from(messagingUsage).where(eq(messagingUsage.month, month)))[0].sent;
      await database.db
        .insert(messagingUsage)
        .values({ month, sent: 100 })
        .onConflictDoUpdate({ target: messagingUsage.month, set: { sent: 100 } });
      const member = await memberWith('both');
      const row = await notifyOne(member.id);
      await n.settle();
      expect(provider.requests.filter((r) => r.to === `whatsapp:${member.phone}`)).toHaveLength(0);
      expect(mail.to(member.email)).toHaveLength(1);
      expect((await historyOf(member))[0]).toMatchObject({
        _id: row.id,
        status: 'sent',
        fallbackUsed: true,
        lastError: DeliveryErrors.monthlyLimit(100),
      });
      // a failed send does not use the allowance
      await database.db.update(messagingUsage).set({ sent: 10 });
      const other = await memberWith('whatsapp');
      provider.failFor(other.phone, ProviderErrors.invalidNumber(other.phone));
      await notifyOne(other.id);
      await n.settle();
      expect(await usage()).toBe(10);
    });

    it('does not retry a permanent WhatsApp failure and sends no email to a WhatsApp-only member', async () => {
      const member = await memberWith('whatsapp');
      provider.failFor(member.phone, ProviderErrors.invalidNumber(member.phone));
      await notifyOne(member.id);
      await n.settle();
      await n.queue.makeRetriesDue();
      await n.settle();
      expect(provider.requests.filter((r) => r.to === `whatsapp:${member.phone}`)).toHaveLength(1);
      expect(mail.to(member.email)).toHaveLength(0);
      expect((await historyOf(member))[0]).toMatchObject({
        status: 'failed',
        attempts: 1,
        fallbackUsed: false,
        lastError: DeliveryErrors.invalidNumber,
      });
    });

    it('retries a transient WhatsApp failure of a WhatsApp-only member until the provider answers', async () => {
      const member = await memberWith('whatsapp');
      provider.failFor(member.phone, ProviderErrors.unavailable());
      await notifyOne(member.id);
      await n.settle();
      expect((await historyOf(member))[0]).toMatchObject({ status: 'retrying', attempts: 1 });
      provider.reset();
      await n.queue.makeRetriesDue();
      await n.settle();
      expect(provider.sentTo(member.phone)).toHaveLength(1);
      expect((await historyOf(member))[0]).toMatchObject({
        status: 'sent',
        attempts: 2,
        deliveredVia: 'whatsapp',
      });
    });

    it('does not send twice when the provider took a message but answered after the timeout, nor give back its allowance', async () => {
      const database = t.app.get(Database);
      const month = localParts(new Date(), 'Asia/Kolkata').date.slice(0, 7);
      const usage = async () =>
        (await database.db.select().from(messagingUsage).where(eq(messagingUsage.month, month)))[0]?.sent ??
        0;
      const member = await memberWith('whatsapp');
      const before = await usage();
      // the provider stores the message, then answers after MSG_TIMEOUT_MS (2000 here)
      provider.delayFor(member.phone, 2_500);
      const row = await notifyOne(member.id);
      await n.settle();
      expect((await historyOf(member))[0]).toMatchObject({
        _id: row.id,
        status: 'retrying',
        lastError: DeliveryErrors.messagingTimeout,
      });
      expect(await usage()).toBe(before + 1); // the outcome is unknown: the allowance is kept
      provider.reset();
      await n.queue.makeRetriesDue();
      await n.settle();
      // the retry found the message at the provider and followed it instead of sending again
      expect(provider.requests.filter((r) => r.to === `whatsapp:${member.phone}`)).toHaveLength(1);
      expect((await historyOf(member))[0]).toMatchObject({
        _id: row.id,
        status: 'sent',
        deliveredVia: 'whatsapp',
        attempts: 2,
      });
      expect(await usage()).toBe(before + 1);
      expect(logs.lines.some((l) => l.text.includes(row.id) && /unanswered send found/.test(l.message))).toBe(
        true,
      );
    });

    it('keeps a notification through an SMTP outage: retried with backoff, delivered once when the server is back', async () => {
      const admin = await t.adminToken();
      const member = await memberWith('both');
      provider.failFor(member.phone, ProviderErrors.invalidNumber(member.phone));
      await mail.stop();
      const row = await notifyOne(member.id);

      await n.settle();
      let [stored] = await historyOf(member);
      expect(stored).toMatchObject({ _id: row.id, status: 'retrying', attempts: 1 });
      expect(stored.lastError).toBe(DeliveryErrors.mailUnreachable);
      // the job waits for its backoff: nothing is due right away
      expect(await n.queue.drain()).toBe(0);
      const summary = await t.get('/admin/health-summary', { token: admin });
      expect(summary.body.jobQueue.pending).toBeGreaterThanOrEqual(1);
      const jobs = await t.get('/health/jobs');
      expect(jobs.body.info.jobs).toMatchObject({ status: 'up', attached: true });
      expect(jobs.body.info.jobs.pending).toBeGreaterThanOrEqual(1);

      // still down at the second attempt
      await n.queue.makeRetriesDue();
      await n.settle();
      [stored] = await historyOf(member);
      expect(stored).toMatchObject({ status: 'retrying', attempts: 2 });

      await mail.start();
      await n.queue.makeRetriesDue();
      await n.settle();
      [stored] = await historyOf(member);
      expect(stored).toMatchObject({
        status: 'sent',
        attempts: 3,
        fallbackUsed: true,
        deliveredVia: 'email',
        channels: ['whatsapp', 'email'],
        lastError: DeliveryErrors.invalidNumber,
      });
      // nothing left, nothing sent twice: one email, and WhatsApp was tried once in all three attempts
      await n.queue.makeRetriesDue();
      expect(await n.settle()).toBe(0);
      expect(mail.to(member.email)).toHaveLength(1);
      expect(provider.requests.filter((r) => r.to === `whatsapp:${member.phone}`)).toHaveLength(1);

      const after = await t.get('/admin/health-summary', { token: admin });
      expect(after.body.jobQueue.pending).toBe(0);
      expect(after.body.jobQueue.processed).toBeGreaterThanOrEqual(1);
    });

    it('retries an SMTP outage until NOTIFY_RETRY_DEADLINE_HOURS (24) after queueing, not a fixed count, then fails', async () => {
      const member = await memberWith('email');
      await mail.stop();
      try {
        const row = await notifyOne(member.id);
        await n.settle();
        expect((await historyOf(member))[0]).toMatchObject({ status: 'retrying', attempts: 1 });
        // 23 hours on, more retries than NOTIFY_RETRY_LIMIT (5 here): still retrying
        const clock = fixClock(t, new Date(row.createdAt.getTime() + 23 * 3_600_000));
        for (let i = 0; i < 7; i++) {
          await n.queue.makeRetriesDue();
          await n.settle();
        }
        expect((await historyOf(member))[0]).toMatchObject({
          status: 'retrying',
          attempts: 8,
          lastError: DeliveryErrors.mailUnreachable,
        });
        // past the deadline: the next attempt's transient failure is final
        clock.set(new Date(row.createdAt.getTime() + 24 * 3_600_000 + 60_000));
        await n.queue.makeRetriesDue();
        await n.settle();
        expect((await historyOf(member))[0]).toMatchObject({
          status: 'failed',
          attempts: 9,
          lastError: DeliveryErrors.mailUnreachable,
        });
        await n.queue.makeRetriesDue();
        expect(await n.settle()).toBe(0);
      } finally {
        restoreClock(t);
        await mail.start();
      }
    });

    it('gives a notification whose job is gone or failed a new one on the schedule tick, and fails it past the deadline', async () => {
      const database = t.app.get(Database);
      const tickAt = (at: Date) => tickSchedulesAt(t, at);
      const jobsOf = (id: string) =>
        sql`from pgboss.job where name = 'notification-delivery' and data->>'notificationId' = ${id}`;
      const [lost, failedJob, late] = [
        await memberWith('email'),
        await memberWith('email'),
        await memberWith('email'),
      ];
      await mail.stop();
      const rows = [await notifyOne(lost.id), await notifyOne(failedJob.id), await notifyOne(late.id)];
      await n.settle();
      await mail.start();
      // a job deleted by hand, one that pg-boss ended as failed, and a lost one whose deadline has passed
      await database.db.execute(sql`delete ${jobsOf(rows[0].id)}`);
      await database.db.execute(sql`update pgboss.job set state = 'failed' where id = ${rows[1].id}`);
      await database.db.execute(sql`delete ${jobsOf(rows[2].id)}`);
      await n.queue.makeRetriesDue();
      await n.settle();
      for (const m of [lost, failedJob, late]) {
        expect((await historyOf(m))[0]).toMatchObject({ status: 'retrying', attempts: 1 });
      }

      // within NOTIFY_JOB_EXPIRE_SECONDS of its last change a row is left alone. (A tick runs every schedule of its
      // hour: a meal reminder may join a member's history, so each row is found by its id.)
      const rowOf = async (m: { token: string }, id: string) =>
        (await historyOf(m)).find((row: { _id: string }) => row._id === id);
      await tickAt(new Date(Date.now() + 60_000));
      await n.settle();
      expect(await rowOf(lost, rows[0].id)).toMatchObject({ status: 'retrying' });

      // later: new jobs for the first two, delivered once; a second tick adds nothing
      await inMess(FIRST_MESS_ID, () =>
        database.db.execute(
          sql`update notifications set created_at = now() - interval '25 hours' where id = ${rows[2].id}`,
        ),
      );
      await tickAt(new Date(Date.now() + 10 * 60_000));
      await tickAt(new Date(Date.now() + 11 * 60_000));
      await n.settle();
      for (const [i, m] of [lost, failedJob].entries()) {
        expect(await rowOf(m, rows[i].id)).toMatchObject({ status: 'sent', attempts: 2 });
        expect(mail.to(m.email).filter((sent) => sent.subject.includes(rows[i].title))).toHaveLength(1);
      }
      expect(await rowOf(late, rows[2].id)).toMatchObject({
        status: 'failed',
        attempts: 1,
        lastError: DeliveryErrors.mailUnreachable,
      });
      expect(mail.to(late.email).filter((sent) => sent.subject.includes(rows[2].title))).toHaveLength(0);
    });

    it('lists only the caller’s own notifications, newest first, paginated', async () => {
      const member = await memberWith('email');
      const other = await memberWith('email');
      await notifyOne(member.id);
      await notifyOne(member.id, 'EXPENSE_ADDED');
      await notifyOne(other.id);
      await n.settle();
      const page = await t.get('/notifications?page=1&limit=1', { token: member.token });
      expect(page.status).toBe(200);
      expect(page.body.pagination).toEqual({ page: 1, limit: 1, total: 2 });
      expect(page.body.notifications).toHaveLength(1);
      expect(page.body.notifications[0].type).toBe('EXPENSE_ADDED');
      const second = await t.get('/notifications?page=2&limit=1', { token: member.token });
      expect(second.body.notifications[0].type).toBe('DISCREPANCY_ALERT');
      expect((await t.get('/notifications?limit=1000', { token: member.token })).status).toBe(400);
    });
  });

  it('never writes a secret or a full phone number to the logs', () => {
    const all = logs.all();
    expect(logs.lines.length).toBeGreaterThan(10);
    for (const secret of [TEST_AUTH_TOKEN, TEST_ACCOUNT_SID, ...SMTP_SECRETS, ADMIN.password]) {
      expect(all).not.toContain(secret);
    }
    expect(all).not.toMatch(/\+91\d{10}/);
  });
});
