import { FIRST_MESS_ID, inMess } from '../../src/common/tenancy/mess-scope';
import { DeliveryErrors } from '../../src/modules/notifications/channels/delivery-error';
import { NotificationsService } from '../../src/modules/notifications/notifications.service';
import { NO_CHANNEL_CONFIGURED } from '../../src/modules/notifications/notifications.errors';
import { TestApp } from '../support/app';
import { captureLogs } from '../support/logs';
import {
  ProviderErrors,
  SANDBOX_NUMBER,
  TEST_ACCOUNT_SID,
  TEST_AUTH_TOKEN,
  MessagingProvider,
} from '../support/messaging-provider';
import { notificationsOf } from '../support/notifications';
import {
  bothProvidersSuite,
  e164,
  phoneNumbers,
  SMTP_SECRETS,
  SWITCHES,
} from '../support/notifications-suite';

/**
 * What a member configures and can check: the configuration check, their switches and channel, and test messages on
 * each channel; and the service with email disabled.
 */
describe('Notifications with both providers configured: configuration, preferences, test messages', () => {
  const suite = bothProvidersSuite();
  const { mail, provider, nextPhone } = suite;
  let t: TestApp;
  beforeAll(() => {
    ({ t } = suite);
  });

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
});

describe('Notifications with email disabled', () => {
  const nextPhone = phoneNumbers();
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
    await inMess(FIRST_MESS_ID, () =>
      t.app
        .get(NotificationsService)
        .notify([{ userId: member.id, type: 'MEAL_REMINDER', title: 'Lunch', content: 'Mark it' }]),
    );
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
