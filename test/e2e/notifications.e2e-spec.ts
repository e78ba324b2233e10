import { eq, sql } from 'drizzle-orm';
import { localParts } from '../../src/common/time/dates';
import { Database } from '../../src/database/database';
import { DeliveryErrors } from '../../src/modules/notifications/channels/delivery-error';
import { NotificationsRepository } from '../../src/modules/notifications/notifications.repository';
import { NotificationsService } from '../../src/modules/notifications/notifications.service';
import { NO_CHANNEL_CONFIGURED } from '../../src/modules/notifications/notifications.errors';
import { messagingUsage } from '../../src/modules/notifications/notifications.schema';
import { ADMIN, TestApp } from '../support/app';
import { captureLogs } from '../support/logs';
import { MailServer } from '../support/mail-server';
import {
  ProviderError,
  ProviderErrors,
  SANDBOX_NUMBER,
  TEST_ACCOUNT_SID,
  TEST_AUTH_TOKEN,
  MessagingProvider,
} from '../support/messaging-provider';
import { fixClock, notificationsOf, restoreClock, tickSchedulesAt } from '../support/notifications';

const SMTP_SECRETS = ['abcd efgh ijkl mnop', 'abcdefghijklmnop'];
const SWITCHES = [
  'mealReminders',
  'paymentDue',
  'costSummary',
  'discrepancyAlerts',
  'mealUpdates',
  'expenseAdded',
  'budgetExceeded',
  'attendanceConfirmations',
  'paymentReceived',
  'leaveDecisions',
];

let phoneCounter = 0;
/** A fresh Indian mobile number per member, so provider failures can target one member. */
const nextPhone = () => `91234${String((phoneCounter += 1)).padStart(5, '0')}`;
const e164 = (phone: string) => `+91${phone}`;

describe('Notifications with both providers configured', () => {
  const mail = new MailServer();
  const provider = new MessagingProvider();
  let logs: ReturnType<typeof captureLogs>;
  let t: TestApp;
  let n: ReturnType<typeof notificationsOf>;
  let notifications: NotificationsService;

  beforeAll(async () => {
    logs = captureLogs();
    await mail.start();
    await provider.start();
    t = await TestApp.start({
      ...mail.env(),
      ...provider.env(),
      NOTIFY_TEST_PER_HOUR: '6',
      NOTIFY_RETRY_DELAY_SECONDS: '1',
      NOTIFY_RETRY_LIMIT: '5',
    });
    n = notificationsOf(t);
    notifications = t.app.get(NotificationsService);
  });
  afterAll(async () => {
    await t.close();
    await mail.stop();
    await provider.stop();
    logs.restore();
  });

  /** A member with their own phone number and the given channel preference. */
  async function memberWith(channel: 'email' | 'whatsapp' | 'both', role: 'student' | 'manager' = 'student') {
    const phone = nextPhone();
    const member = await t.member(role, { phone });
    const res = await t.post(
      '/notifications/preferences/channel',
      { preferredNotificationChannel: channel },
      { token: member.token },
    );
    expect(res.status).toBe(200);
    return { ...member, phone: e164(phone) };
  }

  async function historyOf(member: { token: string }) {
    const res = await t.get('/notifications', { token: member.token });
    expect(res.status).toBe(200);
    return res.body.notifications as any[];
  }

  const notifyOne = async (
    userId: string,
    type: 'DISCREPANCY_ALERT' | 'EXPENSE_ADDED' = 'DISCREPANCY_ALERT',
  ) => {
    const [row] = await notifications.notify([
      { userId, type, title: `Alert <for> ${userId.slice(0, 4)}`, content: 'Dal & rice were marked\ntwice.' },
    ]);
    return row;
  };

  describe('GET /notifications/config/check', () => {
    it('says what is configured, masked, and never a secret', async () => {
      const member = await t.member('student');
      const res = await t.get('/notifications/config/check', { token: member.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        config: {
          mail: { configured: true, email: 'me*********@gmail.com' },
          messaging: {
            configured: true,
            accountSid: `AC${'*'.repeat(28)}cdef`,
            phoneNumber: SANDBOX_NUMBER,
            testPhoneConfigured: false,
          },
          whatsappSupported: true,
        },
      });
      const body = JSON.stringify(res.body);
      for (const secret of [TEST_AUTH_TOKEN, TEST_ACCOUNT_SID, ...SMTP_SECRETS])
        expect(body).not.toContain(secret);
    });

    it('needs a token', async () => {
      expect((await t.get('/notifications/config/check')).body).toEqual({ error: 'No token' });
    });
  });

  describe('preferences', () => {
    it('start at email with every switch on, and change one switch at a time', async () => {
      const member = await t.member('student');
      const initial = await t.get('/notifications/preferences', { token: member.token });
      expect(initial.status).toBe(200);
      expect(initial.body).toEqual({
        success: true,
        channel: 'email',
        preferences: Object.fromEntries(SWITCHES.map((key) => [key, true])),
        phoneConfigured: true,
      });

      const off = await t.put(
        '/notifications/preferences',
        { mealReminders: false },
        { token: member.token },
      );
      expect(off.status).toBe(200);
      expect(off.body.preferences).toEqual({
        ...Object.fromEntries(SWITCHES.map((key) => [key, true])),
        mealReminders: false,
      });
      const second = await t.put(
        '/notifications/preferences',
        { costSummary: false, mealReminders: true },
        { token: member.token },
      );
      expect(second.body.preferences).toMatchObject({
        mealReminders: true,
        costSummary: false,
        paymentDue: true,
      });
      expect(
        (await t.get('/notifications/preferences', { token: member.token })).body.preferences.costSummary,
      ).toBe(false);
    });

    it('refuse unknown switches, non-booleans and an empty change', async () => {
      const member = await t.member('student');
      for (const body of [{ smsAlerts: true }, { mealReminders: 'no' }, {}]) {
        const res = await t.put('/notifications/preferences', body, { token: member.token });
        expect(res.status).toBe(400);
        expect(res.body.success).toBe(false);
      }
    });

    it('refuse null for a switch with its own details entry, and change nothing', async () => {
      const member = await t.member('student');
      const res = await t.put(
        '/notifications/preferences',
        { mealReminders: null, costSummary: false },
        { token: member.token },
      );
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.details).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ field: 'mealReminders', message: expect.stringMatching(/null/) }),
        ]),
      );
      expect((await t.get('/notifications/preferences', { token: member.token })).body.preferences).toEqual(
        Object.fromEntries(SWITCHES.map((key) => [key, true])),
      );
    });

    it('choose a channel; WhatsApp needs a phone number', async () => {
      const member = await t.member('student');
      const both = await t.post(
        '/notifications/preferences/channel',
        { preferredNotificationChannel: 'both' },
        { token: member.token },
      );
      expect(both.status).toBe(200);
      expect(both.body).toMatchObject({
        success: true,
        channel: 'both',
        preferredNotificationChannel: 'both',
      });
      expect((await t.get('/notifications/preferences', { token: member.token })).body.channel).toBe('both');

      const sms = await t.post(
        '/notifications/preferences/channel',
        { preferredNotificationChannel: 'sms' },
        { token: member.token },
      );
      expect(sms.status).toBe(400);
      expect(sms.body.details[0].field).toBe('preferredNotificationChannel');

      // the bootstrap admin has no phone number
      const admin = await t.adminToken();
      expect((await t.get('/notifications/preferences', { token: admin })).body.phoneConfigured).toBe(false);
      for (const channel of ['whatsapp', 'both']) {
        const res = await t.post(
          '/notifications/preferences/channel',
          { preferredNotificationChannel: channel },
          { token: admin },
        );
        expect(res.status).toBe(400);
        expect(res.body.details[0].message).toMatch(/phone number is not available/);
      }
      const email = await t.post(
        '/notifications/preferences/channel',
        { preferredNotificationChannel: 'email' },
        { token: admin },
      );
      expect(email.status).toBe(200);
    });
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
      const sid = (await t.app.get(NotificationsRepository).findById(row.id))!.providerMessageId;
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
      await database.db.execute(
        sql`update notifications set created_at = now() - interval '25 hours' where id = ${rows[2].id}`,
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

  describe('POST /notifications/test', () => {
    it('sends a test email to the configured sender address', async () => {
      const member = await t.member('student', { phone: nextPhone() });
      const before = mail.to('mess.office@gmail.com').length;
      const res = await t.post('/notifications/test', { channel: 'email' }, { token: member.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        message: 'Test notification sent by email',
        details: { email: 'sent', whatsapp: 'skipped' },
        fallbackUsed: false,
      });
      const received = mail.to('mess.office@gmail.com');
      expect(received).toHaveLength(before + 1);
      expect(received.at(-1)!.html).toContain('Test notification');
    });

    it('sends a test WhatsApp message to the caller’s phone', async () => {
      const phone = nextPhone();
      const member = await t.member('student', { phone });
      const res = await t.post('/notifications/test', { channel: 'whatsapp' }, { token: member.token });
      expect(res.body).toEqual({
        success: true,
        message: 'Test notification sent by WhatsApp',
        details: { email: 'skipped', whatsapp: 'sent' },
        fallbackUsed: false,
      });
      expect(provider.sentTo(e164(phone))[0].body).toMatch(
        /^Test notification\n\nThis is a test notification/,
      );
    });

    it('falls back to email on `both` when WhatsApp fails, and says why', async () => {
      const phone = nextPhone();
      const member = await t.member('student', { phone });
      provider.failFor(e164(phone), ProviderErrors.notJoinedSandbox(e164(phone)));
      const res = await t.post('/notifications/test', { channel: 'both' }, { token: member.token });
      expect(res.body).toEqual({
        success: true,
        message: 'Test notification sent by email after WhatsApp failed',
        details: { email: 'sent', whatsapp: DeliveryErrors.notRegistered },
        fallbackUsed: true,
      });
    });

    it('tells a member without a phone that the phone number is not available', async () => {
      const admin = await t.adminToken();
      const res = await t.post('/notifications/test', { channel: 'both' }, { token: admin });
      expect(res.body).toEqual({
        success: true,
        message: 'Test notification sent by email after WhatsApp failed',
        details: { email: 'sent', whatsapp: 'The user phone number is not available' },
        fallbackUsed: true,
      });
      const only = await t.post('/notifications/test', { channel: 'whatsapp' }, { token: admin });
      expect(only.body).toMatchObject({
        success: false,
        details: { whatsapp: DeliveryErrors.phoneUnavailable },
      });
    });

    it('refuses an unknown channel and limits each member per hour', async () => {
      const member = await t.member('student', { phone: nextPhone() });
      expect((await t.post('/notifications/test', { channel: 'sms' }, { token: member.token })).status).toBe(
        400,
      );
      for (let i = 0; i < 6; i += 1) {
        expect(
          (await t.post('/notifications/test', { channel: 'email' }, { token: member.token })).status,
        ).toBe(200);
      }
      const limited = await t.post('/notifications/test', { channel: 'email' }, { token: member.token });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      // another member is not affected
      const other = await t.member('student', { phone: nextPhone() });
      expect((await t.post('/notifications/test', { channel: 'email' }, { token: other.token })).status).toBe(
        200,
      );
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

describe('Notifications with email disabled', () => {
  const provider = new MessagingProvider();
  let logs: ReturnType<typeof captureLogs>;
  let t: TestApp;
  let n: ReturnType<typeof notificationsOf>;

  beforeAll(async () => {
    logs = captureLogs();
    await provider.start();
    t = await TestApp.start(provider.env());
    n = notificationsOf(t);
  });
  afterAll(async () => {
    await t.close();
    await provider.stop();
    logs.restore();
  });

  it('says so once in the log and in config/check', async () => {
    expect(logs.lines.filter((l) => /Email notifications are disabled/.test(l.message))).toHaveLength(1);
    expect(logs.lines.find((l) => /Email notifications are disabled/.test(l.message))!.message).toContain(
      'SMTP_EMAIL, SMTP_PASSWORD not set',
    );
    const member = await t.member('student');
    const res = await t.get('/notifications/config/check', { token: member.token });
    expect(res.body.config).toMatchObject({
      mail: { configured: false, email: '' },
      whatsappSupported: true,
    });
  });

  it('attempts only WhatsApp on `both`', async () => {
    const phone = nextPhone();
    const member = await t.member('student', { phone });
    await t.post(
      '/notifications/preferences/channel',
      { preferredNotificationChannel: 'both' },
      { token: member.token },
    );
    provider.failFor(e164(phone), ProviderErrors.invalidNumber(e164(phone)));
    await t.app
      .get(NotificationsService)
      .notify([{ userId: member.id, type: 'MEAL_REMINDER', title: 'Lunch', content: 'Mark it' }]);
    await n.settle();
    const [stored] = (await t.get('/notifications', { token: member.token })).body.notifications;
    expect(stored).toMatchObject({
      status: 'failed',
      channels: ['whatsapp'],
      fallbackUsed: false,
      lastError: DeliveryErrors.invalidNumber,
    });
    expect(logs.lines.some((l) => l.message === 'Falling back to email')).toBe(false);

    const test = await t.post('/notifications/test', { channel: 'both' }, { token: member.token });
    expect(test.body).toEqual({
      success: false,
      message: 'The test notification could not be sent',
      details: { email: DeliveryErrors.mailNotConfigured, whatsapp: DeliveryErrors.invalidNumber },
      fallbackUsed: false,
    });
    // a delivery that failed for good makes the admin's summary degraded, and it says why
    const summary = await t.get('/admin/health-summary', { token: await t.adminToken() });
    expect(summary.body).toMatchObject({
      status: 'degraded',
      reasons: [expect.stringMatching(/^\d+ notification deliver(y|ies) failed in the last 24 hours$/)],
    });
    expect(summary.body.jobQueue.failed).toBeGreaterThanOrEqual(1);
  });

  it('answers a test of email alone 503 naming the settings, without using up the hourly allowance', async () => {
    const member = await t.member('student', { phone: nextPhone() });
    for (let i = 0; i < 8; i += 1) {
      const res = await t.post('/notifications/test', { channel: 'email' }, { token: member.token });
      expect([res.status, res.body]).toEqual([503, { success: false, error: NO_CHANNEL_CONFIGURED.email }]);
    }
    const whatsapp = await t.post('/notifications/test', { channel: 'whatsapp' }, { token: member.token });
    expect(whatsapp.status).toBe(200);
  });
});
