import { sql } from 'drizzle-orm';
import { inMess } from '../../src/common/tenancy/mess-scope';
import { addDays, monthOf, zonedInstant } from '../../src/common/time/dates';
import { Database } from '../../src/database/database';
import { LeaveDecidedListener } from '../../src/modules/notifications/leave-decided.listener';
import { MessAllocatedListener } from '../../src/modules/notifications/mess-allocated.listener';
import { NOTIFICATION_TYPES } from '../../src/modules/notifications/notification-types';
import { PasswordResetListener } from '../../src/modules/notifications/password-reset.listener';
import { PaymentReceiptsListener } from '../../src/modules/notifications/payment-receipts.listener';
import { messSetup, TestApp } from '../support/app';
import { type ReceivedMail, MailServer } from '../support/mail-server';
import { today, TZ } from '../support/notification-triggers';
import { notificationsOf, tickSchedulesAt } from '../support/notifications';
import { NotificationsService } from '../../src/modules/notifications/notifications.service';

type Member = Awaited<ReturnType<TestApp['member']>>;

/**
 * Every email speaks for the mess of its notification: a member of a second mess gets every notification type from
 * its real trigger (the request, the domain event, the cron tick, the queue's worker) through a real SMTP server,
 * and each mail carries that mess's name in its From and its subject, never the first mess's.
 */
describe("Notifications: each mail in the name of its member's mess", () => {
  const mail = new MailServer();
  let t: TestApp;
  let n: ReturnType<typeof notificationsOf>;
  let beta: { id: string; manager: Member; treasurer: Member; student: Member };
  let alphaStudent: Member;

  beforeAll(async () => {
    await mail.start();
    t = await TestApp.start({
      ...mail.env(),
      MESS_TIMEZONE: TZ,
      PUBLIC_URL: 'https://mess.example.edu/app/',
    });
    n = notificationsOf(t);
    const admin = await t.adminToken();
    expect(
      (await t.post('/auth/admin/setup', messSetup({ messName: 'Alpha Mess' }), { token: admin })).status,
    ).toBe(200);
    const created = await t.post(
      '/messes',
      messSetup({ messName: 'Beta Mess', slug: 'beta', monthlyBudget: 1000 }),
      { token: admin },
    );
    expect(created.status).toBe(201);
    const id = created.body.mess._id as string;
    beta = {
      id,
      manager: await t.member('manager', { messId: id, email: 'beta.manager@college.edu' }),
      treasurer: await t.member('treasurer', { messId: id, email: 'beta.treasurer@college.edu' }),
      student: await t.member('student', { messId: id, email: 'beta.student@college.edu' }),
    };
    alphaStudent = await t.member('student', { email: 'alpha.student@college.edu' });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await mail.stop();
  });

  /** Waits for every listener to have queued its notifications, then delivers every job that is due. */
  const settle = async (): Promise<void> => {
    await Promise.all([
      n.triggers.idle(),
      t.app.get(PasswordResetListener).idle(),
      t.app.get(LeaveDecidedListener).idle(),
      t.app.get(PaymentReceiptsListener).idle(),
      t.app.get(MessAllocatedListener).idle(),
    ]);
    await n.queue.drain();
  };

  const historyOf = async (member: Member): Promise<any[]> => {
    const res = await t.get('/notifications?limit=100', { token: member.token });
    expect(res.status).toBe(200);
    return res.body.notifications as any[];
  };

  /** The display name of a From header: `"Beta Mess" <mess.office@gmail.com>` → Beta Mess. */
  const fromName = (message: ReceivedMail) => /^"?(.*?)"?\s*</.exec(message.headers.from ?? '')?.[1];

  it('sends every notification type to a member of the second mess as that mess', async () => {
    const { manager, treasurer, student } = beta;
    const ist = (date: string, time: string) => zonedInstant(date, time, TZ);

    // COST_SUMMARY and PAYMENT_DUE: a month two months back with ₹900 spent and three meals eaten by the student,
    // billed by the cron tick of the 2nd of the month after, closed by the treasurer, due a week after the 1st.
    const month = monthOf(addDays(`${monthOf(today())}-01`, -32));
    const next = monthOf(addDays(`${month}-28`, 7));
    for (const [category, amount, date] of [
      ['Groceries', 400, `${month}-05`],
      ['Gas', 500, `${month}-06`],
    ] as const) {
      const res = await t.post(
        '/expenses',
        { category, amount, description: category, date },
        { token: manager.token },
      );
      expect(res.status).toBe(201);
    }
    for (const [date, mealType] of [
      [`${month}-10`, 'Lunch'],
      [`${month}-11`, 'Lunch'],
      [`${month}-12`, 'Dinner'],
    ]) {
      const res = await t.post(
        '/attendance',
        { date, mealType, status: 'present' },
        { token: student.token },
      );
      expect(res.status).toBe(201);
    }
    await settle();
    await tickSchedulesAt(t, ist(`${next}-02`, '09:30'));
    expect(
      (await t.post(`/analytics/months/${month}/close`, undefined, { token: treasurer.token })).status,
    ).toBe(200);
    await tickSchedulesAt(t, ist(`${next}-08`, '09:05'));

    // EXPENSE_ADDED to the treasurer; BUDGET_EXCEEDED (₹1,200 of ₹1,000) to the manager and the treasurer.
    expect(
      (
        await t.post(
          '/expenses',
          { category: 'Groceries', amount: 1200, description: 'Rice', date: today() },
          { token: manager.token },
        )
      ).status,
    ).toBe(201);

    // MEAL_UPDATE: a menu published for tomorrow, to every member but the publisher.
    expect(
      (
        await t.post(
          '/meals',
          { date: addDays(today(), 1), mealType: 'Lunch', dishes: ['Rice', 'Dal'] },
          { token: manager.token },
        )
      ).status,
    ).toBe(201);

    // DISCREPANCY_ALERT: the student marked present for yesterday's dinner, after it ended, without a menu.
    expect(
      (
        await t.post(
          '/attendance',
          { date: addDays(today(), -1), mealType: 'Dinner', status: 'present' },
          { token: student.token },
        )
      ).status,
    ).toBe(201);

    // MEAL_REMINDER to those who have not marked lunch two days ahead (the staff), from the cron tick 50 minutes
    // before; ATTENDANCE_CONFIRMATION to the student who has, 25 minutes before.
    const day = addDays(today(), 2);
    expect(
      (
        await t.post(
          '/attendance',
          { date: day, mealType: 'Lunch', status: 'present' },
          { token: student.token },
        )
      ).status,
    ).toBe(201);
    await settle();
    await tickSchedulesAt(t, ist(day, '11:40'));
    await tickSchedulesAt(t, ist(day, '12:05'));

    // PAYMENT_RECEIVED: the treasurer records the student's payment.
    expect(
      (
        await t.post(
          `/accounts/${student.id}/payments`,
          { amount: 500, date: today(), method: 'cash' },
          { token: treasurer.token },
        )
      ).status,
    ).toBe(201);

    // LEAVE_DECIDED: the manager records a leave for the student (approved at once).
    const leave = await t.post(
      '/leaves',
      { startDate: addDays(today(), 10), endDate: addDays(today(), 11), userId: student.id },
      { token: manager.token },
    );
    expect(leave.status).toBe(201);

    // PASSWORD_RESET: the public forgot route, which acts in no mess of its own.
    expect((await t.post('/auth/password/forgot', { email: student.email })).status).toBe(200);

    // MESS_ALLOCATED: a term window over both messes, closed by the admin; the student keeps Beta (the term begins
    // next year, so nobody moves now).
    const admin = await t.adminToken();
    const window = await t.post(
      '/mess-windows',
      {
        term: 'Mess-name term',
        opensAt: new Date(Date.now() - 3_600_000).toISOString(),
        closesAt: new Date(Date.now() + 3_600_000).toISOString(),
        effectiveFrom: `${Number(today().slice(0, 4)) + 1}-01-01`,
      },
      { token: admin },
    );
    expect(window.status).toBe(201);
    expect(
      (
        await t.put(
          `/mess-windows/${window.body.window._id}/choice`,
          { preferences: ['beta'] },
          { token: student.token },
        )
      ).status,
    ).toBe(200);
    expect(
      (await t.post(`/mess-windows/${window.body.window._id}/close`, undefined, { token: admin })).status,
    ).toBe(200);
    await settle();

    const members = [manager, treasurer, student];
    const rows = (
      await Promise.all(members.map(async (m) => (await historyOf(m)).map((row) => ({ m, row }))))
    ).flat();
    // Per type: its rows, each sent by email, each with its one mail; the mess names those mails carry.
    const seen = NOTIFICATION_TYPES.map((type) => {
      const ofType = rows.filter(({ row }) => row.type === type);
      const mails = ofType.map(
        ({ m, row }) => mail.to(m.email).filter((message) => message.subject.endsWith(`: ${row.title}`))[0],
      );
      return {
        type,
        delivered:
          ofType.length > 0 &&
          ofType.every(({ row }) => row.status === 'sent' && row.deliveredVia === 'email'),
        mailed: mails.length > 0 && mails.every(Boolean),
        from: [...new Set(mails.map((message) => message && fromName(message)))],
        subject: [...new Set(mails.map((message) => message?.subject.split(':')[0]))],
        body: mails.every(
          (message) => message?.html.includes('Beta Mess') && message.text.includes('Beta Mess'),
        ),
      };
    });
    expect(seen).toEqual(
      NOTIFICATION_TYPES.map((type) => ({
        type,
        delivered: true,
        mailed: true,
        from: ['Beta Mess'],
        subject: ['Beta Mess'],
        body: true,
      })),
    );
    // Nothing a member of the second mess received speaks for the first mess.
    const toBeta = members.flatMap((m) => mail.to(m.email));
    expect(toBeta.length).toBeGreaterThanOrEqual(NOTIFICATION_TYPES.length);
    for (const message of toBeta) {
      expect(`${message.headers.from} | ${message.subject}`).not.toContain('Alpha Mess');
      expect(message.html).not.toContain('Alpha Mess');
    }

    // …and the first mess's members still get theirs as the first mess: the same menu tick reminded them too.
    const alpha = mail.to(alphaStudent.email);
    expect(alpha.length).toBeGreaterThan(0);
    for (const message of alpha) {
      expect({ from: fromName(message), subject: message.subject }).toEqual({
        from: 'Alpha Mess',
        subject: expect.stringMatching(/^Alpha Mess: /),
      });
    }
  });

  it('delivers a job queued before jobs named their mess in the mess of its row', async () => {
    const { student } = beta;
    const [row] = await inMess(beta.id, () =>
      t.app
        .get(NotificationsService)
        .notify([
          { userId: student.id, type: 'EXPENSE_ADDED', title: 'An older job', content: 'Queued before.' },
        ]),
    );
    const database = t.app.get(Database);
    const job = async () =>
      (
        (await database.db.execute(
          sql`select data from pgboss.job where name = 'notification-delivery' and id = ${row.id}`,
        )) as unknown as { rows: { data: Record<string, string> }[] }
      ).rows[0].data;
    expect(await job()).toEqual({ notificationId: row.id, messId: beta.id });
    await database.db.execute(
      sql`update pgboss.job set data = data - 'messId' where name = 'notification-delivery' and id = ${row.id}`,
    );
    expect(await job()).toEqual({ notificationId: row.id });
    await n.queue.drain();
    const [message] = mail.to(student.email).filter((m) => m.subject.endsWith(': An older job'));
    expect({ from: fromName(message), subject: message.subject }).toEqual({
      from: 'Beta Mess',
      subject: 'Beta Mess: An older job',
    });
  });
});
