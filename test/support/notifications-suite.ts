import { FIRST_MESS_ID, inMess } from '../../src/common/tenancy/mess-scope';
import { NotificationsService } from '../../src/modules/notifications/notifications.service';
import { ADMIN, TestApp } from './app';
import { captureLogs } from './logs';
import { MailServer } from './mail-server';
import { MessagingProvider, TEST_ACCOUNT_SID, TEST_AUTH_TOKEN } from './messaging-provider';
import { notificationsOf } from './notifications';

// What the notifications e2e files share (test/e2e/notifications-*.e2e-spec.ts).

export const SMTP_SECRETS = ['abcd efgh ijkl mnop', 'abcdefghijklmnop'];
export const SWITCHES = [
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

/** A fresh Indian mobile number per call, so provider failures can target one member. */
export function phoneNumbers(): () => string {
  let phoneCounter = 0;
  return () => `91234${String((phoneCounter += 1)).padStart(5, '0')}`;
}
export const e164 = (phone: string) => `+91${phone}`;

/** What the logs must never hold: the providers' secrets, the admin's password, a full phone number. */
export function expectNoSecretsIn(all: string): void {
  for (const secret of [TEST_AUTH_TOKEN, TEST_ACCOUNT_SID, ...SMTP_SECRETS, ADMIN.password]) {
    expect(all).not.toContain(secret);
  }
  expect(all).not.toMatch(/\+91\d{10}/);
}

export type Logs = ReturnType<typeof captureLogs>;
type Member = Awaited<ReturnType<TestApp['member']>>;

export interface BothProvidersSuite {
  readonly mail: MailServer;
  readonly provider: MessagingProvider;
  /** The following are set by the suite's beforeAll. */
  logs: Logs;
  t: TestApp;
  n: ReturnType<typeof notificationsOf>;
  notifications: NotificationsService;
  nextPhone: () => string;
  /** A member with their own phone number and the given channel preference. */
  memberWith(
    channel: 'email' | 'whatsapp' | 'both',
    role?: 'student' | 'manager',
  ): Promise<Member & { phone: string }>;
  /** The member's notifications as GET /notifications lists them (newest first). */
  historyOf(member: { token: string }): Promise<any[]>;
  /** One notification of this type for one member, through the service (the title has HTML to escape). */
  notifyOne(
    userId: string,
    type?: 'DISCREPANCY_ALERT' | 'EXPENSE_ADDED',
  ): Promise<Awaited<ReturnType<NotificationsService['notify']>>[number]>;
}

/**
 * Registers the hooks of a file whose app has both providers configured: a local SMTP server and a local messaging
 * provider, six test notifications an hour, retries a second apart and at most five. The file's logs are recorded
 * from before the start; after its tests they are checked for secrets and full phone numbers (the `it` that says so
 * is in notifications-delivery).
 */
export function bothProvidersSuite(): BothProvidersSuite {
  const suite = {
    mail: new MailServer(),
    provider: new MessagingProvider(),
    nextPhone: phoneNumbers(),
  } as BothProvidersSuite;

  beforeAll(async () => {
    suite.logs = captureLogs();
    await suite.mail.start();
    await suite.provider.start();
    suite.t = await TestApp.start({
      ...suite.mail.env(),
      ...suite.provider.env(),
      NOTIFY_TEST_PER_HOUR: '6',
      NOTIFY_RETRY_DELAY_SECONDS: '1',
      NOTIFY_RETRY_LIMIT: '5',
    });
    suite.n = notificationsOf(suite.t);
    suite.notifications = suite.t.app.get(NotificationsService);
  });
  afterAll(async () => {
    await suite.t?.close();
    await suite.mail.stop();
    await suite.provider.stop();
    suite.logs?.restore();
    if (suite.logs) expectNoSecretsIn(suite.logs.all());
  });

  suite.memberWith = async (channel, role = 'student') => {
    const phone = suite.nextPhone();
    const member = await suite.t.member(role, { phone });
    const res = await suite.t.post(
      '/notifications/preferences/channel',
      { preferredNotificationChannel: channel },
      { token: member.token },
    );
    expect(res.status).toBe(200);
    return { ...member, phone: e164(phone) };
  };
  suite.historyOf = async (member) => {
    const res = await suite.t.get('/notifications', { token: member.token });
    expect(res.status).toBe(200);
    return res.body.notifications as any[];
  };
  suite.notifyOne = async (userId, type = 'DISCREPANCY_ALERT') => {
    // Called on the service, outside a request: in the first mess, whose members t.member makes.
    const [row] = await inMess(FIRST_MESS_ID, () =>
      suite.notifications.notify([
        { userId, type, title: `Alert <for> ${userId.slice(0, 4)}`, content: 'Dal & rice were marked\ntwice.' },
      ]),
    );
    return row;
  };
  return suite;
}
