import { localParts } from '../../src/common/time/dates';
import { messSetup, TestApp } from './app';
import { MailServer } from './mail-server';
import { MessagingProvider } from './messaging-provider';
import { notificationsOf } from './notifications';

// What the notification-trigger e2e files share (test/e2e/notifications-triggers-*.e2e-spec.ts).

export const TZ = 'Asia/Kolkata';
export const today = () => localParts(new Date(), TZ).date;

export type Member = Awaited<ReturnType<TestApp['member']>> & { phone: string };

export interface TriggersSuite {
  readonly mail: MailServer;
  readonly provider: MessagingProvider;
  /** The eight members of every file, by name: set by the suite's beforeAll. */
  readonly members: Record<string, Member>;
  t: TestApp;
  n: ReturnType<typeof notificationsOf>;
  admin: string;
  /** A manager publishes a menu (201); answers its id. */
  publishMenu(date: string, mealType: string, dishes: string[]): Promise<string>;
  /** A member with their own phone number, a channel, and these switches off. */
  member(
    role: 'student' | 'manager' | 'treasurer',
    channel: 'email' | 'whatsapp' | 'both',
    switchesOff?: string[],
  ): Promise<Member>;
  /** The member's notifications of one type, oldest first, as the API lists them. */
  received(m: { token: string }, type: string): Promise<any[]>;
}

/**
 * Registers the hooks of a file that drives each notification type from its real trigger: an app in India's time
 * zone with both providers, a budget of ₹1,000, and eight members with their channels and switches (see below).
 */
export function triggersSuite(): TriggersSuite {
  let phones = 0;
  const suite = { mail: new MailServer(), provider: new MessagingProvider(), members: {} } as TriggersSuite;
  const { members } = suite;

  suite.publishMenu = async (date, mealType, dishes) => {
    const published = await suite.t.post(
      '/meals',
      { date, mealType, dishes },
      { token: members.manager.token },
    );
    expect(published.status).toBe(201);
    return published.body.meal._id;
  };

  suite.member = async (role, channel, switchesOff = []) => {
    const phone = `90000${String((phones += 1)).padStart(5, '0')}`;
    const m = await suite.t.member(role, { phone });
    await suite.t.post(
      '/notifications/preferences/channel',
      { preferredNotificationChannel: channel },
      { token: m.token },
    );
    if (switchesOff.length) {
      const res = await suite.t.put(
        '/notifications/preferences',
        Object.fromEntries(switchesOff.map((key) => [key, false])),
        { token: m.token },
      );
      expect(res.status).toBe(200);
    }
    return { ...m, phone: `+91${phone}` };
  };

  suite.received = async (m, type) => {
    const res = await suite.t.get('/notifications?limit=100', { token: m.token });
    return (res.body.notifications as any[]).filter((x) => x.type === type).reverse();
  };

  beforeAll(async () => {
    await suite.mail.start();
    await suite.provider.start();
    suite.t = await TestApp.start({ ...suite.mail.env(), ...suite.provider.env(), MESS_TIMEZONE: TZ });
    suite.n = notificationsOf(suite.t);
    suite.admin = await suite.t.adminToken();
    const setup = await suite.t.post('/auth/admin/setup', messSetup({ monthlyBudget: 1000 }), {
      token: suite.admin,
    });
    expect(setup.status).toBe(200);
    const { member } = suite;
    members.manager = await member('manager', 'email');
    members.managerBoth = await member('manager', 'both');
    members.managerQuiet = await member('manager', 'email', ['discrepancyAlerts']);
    members.treasurer = await member('treasurer', 'email');
    members.treasurerQuiet = await member('treasurer', 'email', ['expenseAdded']);
    members.studentWhatsApp = await member('student', 'whatsapp');
    members.studentQuiet = await member('student', 'email', ['mealReminders', 'mealUpdates']);
    members.student = await member('student', 'email');
  }, 180_000); // a cold start and eight members on the embedded engine outlast the default 30 s on a busy machine
  afterAll(async () => {
    await suite.t?.close();
    await suite.mail.stop();
    await suite.provider.stop();
  });
  return suite;
}
