import { FIRST_MESS_ID, inMess } from '../../src/common/tenancy/mess-scope';
import { addDays, monthOf, zonedInstant } from '../../src/common/time/dates';
import { TestApp } from '../support/app';
import { notificationsOf, tickSchedulesAt } from '../support/notifications';
import { today, triggersSuite, TZ } from '../support/notification-triggers';

/**
 * Each notification type from its real trigger: the expense, menu and attendance endpoints publish their domain
 * events, and the schedule handlers run at instants the test chooses (the handlers take `now`).
 * Here: expenses against the budget, the monthly bill and the payment due.
 */
/** A schedule handler called directly (no request, no tick): in the first mess, the suite's. */
const inFirstMess = <T>(work: () => Promise<T>): Promise<T> => inMess(FIRST_MESS_ID, work);

describe('Notification triggers: expenses, budget, bills and dues', () => {
  const suite = triggersSuite();
  const { provider, members, received } = suite;
  let t: TestApp;
  let n: ReturnType<typeof notificationsOf>;
  let admin: string;
  beforeAll(() => {
    ({ t, n, admin } = suite);
  });

  it('EXPENSE_ADDED goes by email to the managers and treasurers, except the recorder; BUDGET_EXCEEDED once a month', async () => {
    const { manager, managerBoth, managerQuiet, treasurer, treasurerQuiet, student } = members;
    const first = await t.post(
      '/expenses',
      { category: 'Groceries', amount: 600, description: 'Rice and dal', date: today() },
      { token: manager.token },
    );
    expect(first.status).toBe(201);
    await n.settle();

    // the recorder and the students are not told; a 'both' manager gets email (the type has no WhatsApp support)
    expect(await received(manager, 'EXPENSE_ADDED')).toHaveLength(0);
    expect(await received(student, 'EXPENSE_ADDED')).toHaveLength(0);
    expect(await received(treasurerQuiet, 'EXPENSE_ADDED')).toHaveLength(0);
    for (const m of [managerBoth, managerQuiet, treasurer]) {
      const [note] = await received(m, 'EXPENSE_ADDED');
      expect(note).toMatchObject({
        title: 'New expense: ₹600.00 for Groceries',
        status: 'sent',
        channels: ['email'],
      });
      expect(note.content).toBe(`${manager.fullName} recorded ₹600.00 under Groceries on ${today()}.`);
    }
    expect(provider.sentTo(managerBoth.phone)).toHaveLength(0);
    // 600 of 1000: within budget
    expect(await received(manager, 'BUDGET_EXCEEDED')).toHaveLength(0);

    await t.post(
      '/expenses',
      { category: 'Gas', amount: 500, description: 'Cylinder', date: today() },
      { token: treasurer.token },
    );
    await n.settle();
    const month = today().slice(0, 7);
    for (const m of [manager, managerBoth, managerQuiet, treasurer, treasurerQuiet]) {
      const notes = await received(m, 'BUDGET_EXCEEDED');
      expect(notes).toHaveLength(1);
      expect(notes[0].title).toBe(`Budget exceeded for ${month}`);
      expect(notes[0].content).toContain('₹1,100.00');
      expect(notes[0].content).toContain('₹1,000.00');
    }
    const adminNotes = (await t.get('/notifications', { token: admin })).body.notifications;
    expect(adminNotes.filter((x: any) => x.type === 'BUDGET_EXCEEDED')).toHaveLength(1);
    expect(await received(student, 'BUDGET_EXCEEDED')).toHaveLength(0);
    // BUDGET_EXCEEDED supports WhatsApp: the 'both' manager gets it there
    expect((await received(managerBoth, 'BUDGET_EXCEEDED'))[0]).toMatchObject({ deliveredVia: 'whatsapp' });
    expect(provider.sentTo(managerBoth.phone)[0].body).toMatch(
      /^Budget exceeded for \d{4}-\d{2}\n\nSpending/,
    );

    // further spending in the same month does not alert again
    await t.post(
      '/expenses',
      { category: 'Gas', amount: 50, description: 'Matches', date: today() },
      { token: manager.token },
    );
    await n.settle();
    expect(await received(treasurer, 'BUDGET_EXCEEDED')).toHaveLength(1);
    expect(await received(treasurer, 'EXPENSE_ADDED')).toHaveLength(2);
  });

  it('COST_SUMMARY on the 1st with each member’s share of the month before, and PAYMENT_DUE a week later with what their account says is due', async () => {
    const { manager, treasurer, student, studentWhatsApp, studentQuiet } = members;
    // a month of its own, two months back: ₹900 spent, four meals eaten by two members
    const month = monthOf(addDays(`${monthOf(today())}-01`, -32));
    const next = monthOf(addDays(`${month}-28`, 7));
    await t.post(
      '/expenses',
      { category: 'Groceries', amount: 400, description: 'Atta', date: `${month}-05` },
      { token: manager.token },
    );
    await t.post(
      '/expenses',
      { category: 'Gas', amount: 500, description: 'Cylinder', date: `${month}-06` },
      { token: treasurer.token },
    );
    for (const [date, mealType] of [
      [`${month}-10`, 'Lunch'],
      [`${month}-11`, 'Lunch'],
      [`${month}-12`, 'Dinner'],
    ]) {
      await t.post('/attendance', { date, mealType, status: 'present' }, { token: student.token });
    }
    await t.post(
      '/attendance',
      { date: `${month}-10`, mealType: 'Dinner', status: 'present' },
      { token: studentWhatsApp.token },
    );
    await t.put('/notifications/preferences', { costSummary: false }, { token: studentWhatsApp.token });
    await n.settle();

    const at = (day: string, time: string) => zonedInstant(`${next}-${day}`, time, TZ);
    expect(await inFirstMess(() => n.schedules.costSummaries(at('01', '08:59')))).toBe(0);
    // the service was down all of the 1st: the cron tick of the 2nd (the app's clock fixed there) catches up
    await tickSchedulesAt(t, at('02', '09:30'));
    // the dedupe keys make any later tick of the month a no-op, on this replica or another
    expect(await inFirstMess(() => n.schedules.costSummaries(at('01', '09:05')))).toBe(0);
    expect(await inFirstMess(() => n.schedules.costSummaries(at('20', '09:05')))).toBe(0);
    await n.settle();
    // the mess's chargeMethod (proportional by default), what the member is charged: 900 × 3 / 4 meals = 675.00
    expect(await received(student, 'COST_SUMMARY')).toMatchObject([
      {
        title: `Your mess bill for ${month}: ₹675.00`,
        content: `In ${month} you attended 3 meals. The mess spent ₹900.00 in total; your share is ₹675.00.`,
        channels: ['email'],
        status: 'sent',
      },
    ]);
    expect(await received(studentWhatsApp, 'COST_SUMMARY')).toHaveLength(0); // switched off
    expect(await received(studentQuiet, 'COST_SUMMARY')).toHaveLength(0); // no meals

    // the treasurer closes the month: the shares become charges on the members' accounts
    expect(
      (await t.post(`/analytics/months/${month}/close`, undefined, { token: treasurer.token })).status,
    ).toBe(200);
    expect(await inFirstMess(() => n.schedules.paymentsDue(at('07', '10:00')))).toBe(0);
    expect(await inFirstMess(() => n.schedules.paymentsDue(at('08', '08:59')))).toBe(0);
    expect(await inFirstMess(() => n.schedules.paymentsDue(at('08', '09:00')))).toBe(2);
    await n.settle();
    expect(await received(student, 'PAYMENT_DUE')).toMatchObject([
      {
        title: 'Payment due: ₹675.00',
        content:
          `Your mess account shows ₹675.00 due (bills up to ${month}, less what you have paid), ` +
          `due on ${next}-08. Please pay the treasurer.`,
        channels: ['email'],
      },
    ]);
    // PAYMENT_DUE supports WhatsApp: 900 × 1 / 4 = 225.00
    expect(await received(studentWhatsApp, 'PAYMENT_DUE')).toMatchObject([
      { title: 'Payment due: ₹225.00', deliveredVia: 'whatsapp' },
    ]);
    expect(provider.sentTo(studentWhatsApp.phone).at(-1)!.body).toMatch(/^Payment due: ₹225\.00/);
    expect(await inFirstMess(() => n.schedules.paymentsDue(at('08', '15:00')))).toBe(0);
    expect(await inFirstMess(() => n.schedules.paymentsDue(at('15', '09:00')))).toBe(0);
  });
});
