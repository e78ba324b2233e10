import { FIRST_MESS_ID, inMess } from '../../src/common/tenancy/mess-scope';
import { addDays, zonedInstant } from '../../src/common/time/dates';
import { NotificationSchedules } from '../../src/modules/notifications/notification-schedules';
import { NotificationTriggers } from '../../src/modules/notifications/notification-triggers';
import { TestApp } from '../support/app';
import { fixClock, notificationsOf, restoreClock, tickSchedulesAt } from '../support/notifications';
import { type Member, today, triggersSuite, TZ } from '../support/notification-triggers';

/**
 * Each notification type from its real trigger: the expense, menu and attendance endpoints publish their domain
 * events, and the schedule handlers run at instants the test chooses (the handlers take `now`).
 * Here: menus, headcounts, meal reminders, attendance confirmations and discrepancy alerts.
 */
/** A schedule or trigger method called directly (no request, no tick): in the first mess, the suite's. */
const inFirstMess = <T>(work: () => Promise<T>): Promise<T> => inMess(FIRST_MESS_ID, work);

describe('Notification triggers: menus, headcounts, reminders, confirmations and discrepancies', () => {
  const suite = triggersSuite();
  const { provider, members, publishMenu, member, received } = suite;
  let t: TestApp;
  let n: ReturnType<typeof notificationsOf>;
  beforeAll(() => {
    ({ t, n } = suite);
  });

  it('MEAL_UPDATE goes to every member but the publisher when a menu of today or later is published or changed', async () => {
    const { manager, studentWhatsApp, studentQuiet, student } = members;
    const tomorrow = addDays(today(), 1);
    const id = await publishMenu(tomorrow, 'Lunch', ['Rice', 'Dal']);
    await n.settle();
    expect(await received(manager, 'MEAL_UPDATE')).toHaveLength(0);
    expect(await received(studentQuiet, 'MEAL_UPDATE')).toHaveLength(0);
    const [note] = await received(student, 'MEAL_UPDATE');
    expect(note).toMatchObject({
      title: `Menu published: Lunch on ${tomorrow}`,
      content: `Lunch on ${tomorrow}: Rice, Dal.`,
      channels: ['email'],
    });
    // no WhatsApp support: email even for a WhatsApp-only member
    expect((await received(studentWhatsApp, 'MEAL_UPDATE'))[0].channels).toEqual(['email']);

    const changed = await t.put(
      `/meals/${id}`,
      { date: tomorrow, mealType: 'Lunch', dishes: ['Rice', 'Rajma'] },
      { token: manager.token },
    );
    expect(changed.status).toBe(200);
    await n.settle();
    const notes = await received(student, 'MEAL_UPDATE');
    expect(notes.map((x) => x.title)).toEqual([
      `Menu published: Lunch on ${tomorrow}`,
      `Menu changed: Lunch on ${tomorrow}`,
    ]);
    expect(notes[1].content).toBe(`Lunch on ${tomorrow}: Rice, Rajma.`);

    // re-saving the same menu announces nothing; a menu of a past day neither
    await t.put(
      `/meals/${id}`,
      { date: tomorrow, mealType: 'Lunch', dishes: ['Rice', 'Rajma'] },
      { token: manager.token },
    );
    await t.post(
      '/meals',
      { date: addDays(today(), -3), mealType: 'Dinner', dishes: ['Khichdi'] },
      { token: manager.token },
    );
    await n.settle();
    expect(await received(student, 'MEAL_UPDATE')).toHaveLength(2);
  });

  it('MEAL_REMINDER before a meal to members who have not marked it; ATTENDANCE_CONFIRMATION to those who have', async () => {
    const { studentWhatsApp, studentQuiet, student, manager } = members;
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
    const at = (time: string) => zonedInstant(day, time, TZ);

    // outside the window (more than 60 minutes before, or after the start): nothing
    expect(await inFirstMess(() => n.schedules.mealReminders(at('11:29')))).toBe(0);
    expect(await inFirstMess(() => n.schedules.mealReminders(at('12:30')))).toBe(0);

    const queued = await inFirstMess(() => n.schedules.mealReminders(at('11:40')));
    await n.settle();
    expect(queued).toBeGreaterThan(0);
    expect(await received(student, 'MEAL_REMINDER')).toHaveLength(0); // marked
    expect(await received(studentQuiet, 'MEAL_REMINDER')).toHaveLength(0); // switched off
    const [reminder] = await received(manager, 'MEAL_REMINDER');
    expect(reminder).toMatchObject({ title: 'Lunch at 12:30: mark your attendance', channels: ['email'] });
    expect(reminder.content).toContain(`Lunch on ${day} (12:30–14:30)`);
    // MEAL_REMINDER supports WhatsApp
    expect((await received(studentWhatsApp, 'MEAL_REMINDER'))[0]).toMatchObject({ deliveredVia: 'whatsapp' });
    expect(provider.sentTo(studentWhatsApp.phone).at(-1)!.body).toBe(
      `${reminder.title}\n\n${reminder.content}`,
    );

    // later ticks, and a second replica with its own schedules, queue nothing twice
    expect(await inFirstMess(() => n.schedules.mealReminders(at('11:50')))).toBe(0);
    const replica = new NotificationSchedules(
      (n.schedules as any).notifications,
      (n.schedules as any).attendance,
      (n.schedules as any).leave,
      (n.schedules as any).messConfig,
      (n.schedules as any).directory,
      (n.schedules as any).clock,
      (n.schedules as any).config,
      (n.schedules as any).outages,
    );
    expect(await inFirstMess(() => replica.mealReminders(at('11:55')))).toBe(0);
    await n.settle();
    expect(await received(manager, 'MEAL_REMINDER')).toHaveLength(1);

    // 30 minutes before: confirmations to the members who marked
    expect(await inFirstMess(() => n.schedules.attendanceConfirmations(at('11:59')))).toBe(0);
    expect(await inFirstMess(() => n.schedules.attendanceConfirmations(at('12:05')))).toBe(1);
    await n.settle();
    expect(await received(student, 'ATTENDANCE_CONFIRMATION')).toMatchObject([
      { title: 'Confirm your Lunch attendance', status: 'sent' },
    ]);
    expect(await received(manager, 'ATTENDANCE_CONFIRMATION')).toHaveLength(0);
  });

  it('DISCREPANCY_ALERT to the managers when a mark is made or changed after the meal, or without a menu', async () => {
    const { manager, managerBoth, managerQuiet, student, studentWhatsApp } = members;
    const yesterday = addDays(today(), -1);

    // a future meal: nothing to report
    await t.post(
      '/attendance',
      { date: addDays(today(), 3), mealType: 'Dinner', status: 'present' },
      { token: student.token },
    );
    await n.settle();
    expect(await received(manager, 'DISCREPANCY_ALERT')).toHaveLength(0);

    // yesterday's dinner is over and had no menu
    const marked = await t.post(
      '/attendance',
      { date: yesterday, mealType: 'Dinner', status: 'present' },
      { token: student.token },
    );
    expect(marked.status).toBe(201);
    await n.settle();
    const [alert] = await received(manager, 'DISCREPANCY_ALERT');
    expect(alert.title).toBe(`Attendance discrepancy: Dinner on ${yesterday}`);
    expect(alert.content).toBe(
      `${student.fullName} was marked present for Dinner on ${yesterday} after the meal ended.\n` +
        `${student.fullName} is marked present for Dinner on ${yesterday}, but no menu was published for that meal.`,
    );
    expect(await received(managerQuiet, 'DISCREPANCY_ALERT')).toHaveLength(0);
    expect(await received(student, 'DISCREPANCY_ALERT')).toHaveLength(0);
    // DISCREPANCY_ALERT supports WhatsApp
    expect((await received(managerBoth, 'DISCREPANCY_ALERT'))[0]).toMatchObject({ deliveredVia: 'whatsapp' });

    // changed afterwards
    await t.post(
      '/attendance',
      { date: yesterday, mealType: 'Dinner', status: 'absent' },
      { token: student.token },
    );
    await n.settle();
    const alerts = await received(manager, 'DISCREPANCY_ALERT');
    expect(alerts).toHaveLength(2);
    expect(alerts[1].content).toBe(
      `${student.fullName}'s attendance for Dinner on ${yesterday} was changed from present to absent after the meal ended.`,
    );

    // a manager marking for a member is not told about their own mark
    await t.post(
      '/attendance',
      { date: yesterday, mealType: 'Breakfast', status: 'absent', userId: studentWhatsApp.id },
      { token: manager.token },
    );
    await n.settle();
    expect(await received(manager, 'DISCREPANCY_ALERT')).toHaveLength(2);
    expect(await received(managerBoth, 'DISCREPANCY_ALERT')).toHaveLength(3);
  });

  it('DISCREPANCY_ALERT for a meal being served without a menu is one per slot, however many plates are marked', async () => {
    const { manager, student, studentWhatsApp, studentQuiet } = members;
    const day = addDays(today(), 5);
    const slotAlerts = async () =>
      (await received(manager, 'DISCREPANCY_ALERT')).filter(
        (x) => x.title === `Attendance discrepancy: Lunch on ${day}`,
      );
    fixClock(t, zonedInstant(day, '13:00', TZ)); // Lunch (12:30–14:30) is being served; no menu was published
    try {
      for (const m of [student, studentWhatsApp, studentQuiet]) {
        const res = await t.post(
          '/attendance',
          { date: day, mealType: 'Lunch', status: 'present', userId: m.id },
          { token: members.managerBoth.token },
        );
        expect(res.status).toBe(201);
        await n.settle();
      }
    } finally {
      restoreClock(t);
    }
    const alerts = await slotAlerts();
    expect(alerts).toHaveLength(1);
    expect(alerts[0].content).toBe(
      `${student.fullName} is marked present for Lunch on ${day}, but no menu was published for that meal.`,
    );
  });

  it('DISCREPANCY_ALERT when a meal goes on being served after its menu was withdrawn (the menu seen is not trusted after)', async () => {
    const { manager, managerBoth, student, studentWhatsApp } = members;
    const day = addDays(today(), 6);
    const id = await publishMenu(day, 'Lunch', ['Rice', 'Dal']);
    await n.settle();
    const slotAlerts = async () =>
      (await received(manager, 'DISCREPANCY_ALERT')).filter(
        (x) => x.title === `Attendance discrepancy: Lunch on ${day}`,
      );
    fixClock(t, zonedInstant(day, '13:00', TZ)); // Lunch is being served
    try {
      const mark = async (userId: string) => {
        const res = await t.post(
          '/attendance',
          { date: day, mealType: 'Lunch', status: 'present', userId },
          { token: managerBoth.token },
        );
        expect(res.status).toBe(201);
        await n.settle();
      };
      await mark(student.id); // the menu is there (and now remembered): no alert
      expect(await slotAlerts()).toHaveLength(0);
      expect((await t.delete(`/meals/${id}`, { token: manager.token })).status).toBe(200);
      await n.settle();
      await mark(studentWhatsApp.id); // the remembered menu is gone with it: served without one
    } finally {
      restoreClock(t);
    }
    const alerts = await slotAlerts();
    expect(alerts).toHaveLength(1);
    expect(alerts[0].content).toContain('but no menu was published for that meal');
  });

  it('MEAL_UPDATE announces every change (Dal → Rajma → Dal is three) and a withdrawn menu', async () => {
    const { manager, student } = members;
    const day = addDays(today(), 4);
    const titles = async () =>
      (await received(student, 'MEAL_UPDATE')).filter((x) => x.title.endsWith(`Dinner on ${day}`));
    const id = await publishMenu(day, 'Dinner', ['Dal']);
    for (const dishes of [['Rajma'], ['Dal']]) {
      await t.put(`/meals/${id}`, { date: day, mealType: 'Dinner', dishes }, { token: manager.token });
      await n.settle();
    }
    expect((await titles()).map((x) => x.content)).toEqual([
      `Dinner on ${day}: Dal.`,
      `Dinner on ${day}: Rajma.`,
      `Dinner on ${day}: Dal.`,
    ]);
    expect((await t.delete(`/meals/${id}`, { token: manager.token })).status).toBe(200);
    await n.settle();
    expect((await titles()).at(-1)).toMatchObject({ title: `Menu withdrawn: Dinner on ${day}` });
  });

  it('MEAL_UPDATE: two versions saved in one millisecond are two announcements; one handled twice is one', async () => {
    const { manager, student } = members;
    const day = addDays(today(), 5);
    const id = await publishMenu(day, 'Breakfast', ['Khichdi']);
    await n.settle();
    const triggers = t.app.get(NotificationTriggers);
    // A publish and a change stamped with the same updatedAt, their triggers in either order.
    const updatedAt = new Date().toISOString();
    const saved = (dishes: string[]) => ({
      mealId: id,
      date: day,
      mealType: 'Breakfast',
      dishes,
      actorId: manager.id,
      updatedAt,
    });
    expect(await inFirstMess(() => triggers.mealUpdate(saved(['Rajma']), 'published'))).toBeGreaterThan(0);
    expect(await inFirstMess(() => triggers.mealUpdate(saved(['Paneer']), 'published'))).toBeGreaterThan(0);
    expect(await inFirstMess(() => triggers.mealUpdate(saved(['Paneer']), 'published'))).toBe(0);
    await n.settle();
    const breakfast = (await received(student, 'MEAL_UPDATE')).filter((x) =>
      x.title.endsWith(`Breakfast on ${day}`),
    );
    expect(breakfast.map((x) => x.content)).toEqual([
      `Breakfast on ${day}: Khichdi.`,
      `Breakfast on ${day}: Rajma.`,
      `Breakfast on ${day}: Paneer.`,
    ]);
  });

  it('DISCREPANCY_ALERT: every change back and forth is reported; a bulk request is one alert per manager', async () => {
    const { manager, managerBoth, student, studentWhatsApp, studentQuiet } = members;
    const day = addDays(today(), -2);
    const slot = async (m: Member) =>
      (await received(m, 'DISCREPANCY_ALERT')).filter((x) => x.title.includes(`Lunch on ${day}`));
    for (const status of ['present', 'absent', 'present', 'absent']) {
      await t.post('/attendance', { date: day, mealType: 'Lunch', status }, { token: student.token });
      await n.settle();
    }
    expect(await slot(manager)).toHaveLength(4);

    const bulk = await t.post(
      '/attendance/bulk',
      {
        date: day,
        mealType: 'Breakfast',
        marks: [student, studentWhatsApp, studentQuiet].map((m) => ({ userId: m.id, status: 'present' })),
      },
      { token: managerBoth.token },
    );
    expect(bulk.status).toBeLessThan(300);
    await n.settle();
    const alerts = (await received(manager, 'DISCREPANCY_ALERT')).filter((x) =>
      x.title.includes(`Breakfast on ${day}`),
    );
    expect(alerts).toHaveLength(1);
    expect(alerts[0].title).toBe(`Attendance discrepancy: 3 marks for Breakfast on ${day}`);
    expect(alerts[0].content).toContain(`${studentQuiet.fullName}: present`);
    // the manager who marked is not told
    expect(
      (await received(managerBoth, 'DISCREPANCY_ALERT')).filter((x) =>
        x.title.includes(`Breakfast on ${day}`),
      ),
    ).toHaveLength(0);
  });

  it('MEAL_UPDATE: managers get a meal’s expected headcount before it, then each change of the count until it ends', async () => {
    const { manager, managerBoth, student, studentWhatsApp, studentQuiet } = members;
    const managerNoUpdates = await member('manager', 'email', ['mealUpdates']);
    const day = addDays(today(), 6);
    const at = (time: string) => zonedInstant(day, time, TZ);
    const headcounts = async (m: { token: string }) =>
      (await received(m, 'MEAL_UPDATE')).filter((x) => x.title.includes(`Breakfast on ${day}`));
    const mark = async (m: Member, status: 'present' | 'absent') =>
      expect(
        (await t.post('/attendance', { date: day, mealType: 'Breakfast', status }, { token: m.token }))
          .status,
      ).toBeLessThan(300);
    /** The minute tick, as cron runs it, with the app's clock at `time` on `day`. */
    const tickAt = async (time: string) => {
      await tickSchedulesAt(t, at(time));
      await n.settle();
    };
    const replica = new NotificationSchedules(
      (n.schedules as any).notifications,
      (n.schedules as any).attendance,
      (n.schedules as any).leave,
      (n.schedules as any).messConfig,
      (n.schedules as any).directory,
      (n.schedules as any).clock,
      (n.schedules as any).config,
      (n.schedules as any).outages,
    );
    await mark(student, 'present');
    await mark(studentWhatsApp, 'present');
    await mark(studentQuiet, 'absent');

    // NOTIFY_HEADCOUNT_MINUTES (30) before 07:30: not at 06:59, once from 07:00
    await tickAt('06:59');
    expect(await headcounts(manager)).toHaveLength(0);
    await tickAt('07:00');
    await tickAt('07:05');
    expect(await headcounts(manager)).toMatchObject([
      {
        title: `Expected headcount: Breakfast on ${day}: 2`,
        content: `2 members are marked present for Breakfast on ${day} (07:30–09:30).`,
        status: 'sent',
      },
    ]);
    expect(await headcounts(managerBoth)).toMatchObject([{ channels: ['email'] }]);
    expect(await headcounts(managerNoUpdates)).toHaveLength(0); // mealUpdates switched off
    expect(await headcounts(student)).toHaveLength(0); // managers only
    expect(await inFirstMess(() => replica.headcounts(at('07:06')))).toBe(0);

    // marks between two ticks are coalesced: +1 and −1 leave the count at 2, nothing to say
    await mark(studentQuiet, 'present');
    await mark(studentWhatsApp, 'absent');
    await tickAt('07:10');
    expect(await headcounts(manager)).toHaveLength(1);

    // the count moves: one notice with the new count, also after the start; two replicas at once send it once
    await mark(studentWhatsApp, 'present');
    fixClock(t, at('07:40'));
    try {
      const queued = await inFirstMess(() => Promise.all([n.schedules.headcounts(), replica.headcounts()]));
      expect(queued[0] + queued[1]).toBe(3); // the three managers with mealUpdates on, once each
    } finally {
      restoreClock(t);
    }
    await n.settle();
    await mark(student, 'absent');
    await tickAt('08:15');
    await tickAt('08:16');
    expect((await headcounts(manager)).map((x) => x.title)).toEqual([
      `Expected headcount: Breakfast on ${day}: 2`,
      `Headcount changed: Breakfast on ${day}: 3`,
      `Headcount changed: Breakfast on ${day}: 2`,
    ]);

    // once the meal has ended, changes are not announced
    await mark(studentQuiet, 'absent');
    await tickAt('09:30');
    expect(await headcounts(manager)).toHaveLength(3);
    expect(await headcounts(managerNoUpdates)).toHaveLength(0);
  });

  it("MEAL_UPDATE: none for the menus the weekly menu publishes, one for a manager's edit of one (the SMTP server counts)", async () => {
    const { manager, student } = members;
    const menuMails = () =>
      suite.mail.to(student.email).filter((m) => /Menu (published|changed)/.test(m.subject));
    await n.settle();
    const before = menuMails().length;
    const beforeListed = (await received(student, 'MEAL_UPDATE')).length;
    // a one-week rotation from the Monday of this week: Dinner every day
    const weekday = (new Date(`${today()}T00:00:00Z`).getUTCDay() + 6) % 7;
    const monday = addDays(today(), -weekday);
    const days = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
    const set = await t.put(
      '/meals/rotation',
      {
        startsOn: monday,
        weeks: 1,
        entries: days.map((day) => ({ week: 1, day, mealType: 'Dinner', dishes: [`Dinner of ${day}`] })),
      },
      { token: manager.token },
    );
    expect(set.status).toBe(200);
    const day = addDays(today(), 3);
    const listed = await t.get(`/meals?date=${day}&mealType=Dinner`, { token: student.token });
    const [menu] = listed.body.meals;
    expect(menu.source).toBe('rotation');
    await n.settle();
    expect(menuMails()).toHaveLength(before);
    expect(await received(student, 'MEAL_UPDATE')).toHaveLength(beforeListed);

    const edited = await t.put(
      `/meals/${menu._id}`,
      { date: day, mealType: 'Dinner', dishes: ['Paneer', 'Roti'] },
      { token: manager.token },
    );
    expect([edited.status, edited.body.meal.source]).toEqual([200, 'manager']);
    await n.settle();
    expect(menuMails()).toHaveLength(before + 1);
    expect(menuMails()[before].subject).toContain(`Menu changed: Dinner on ${day}`);
  });

  it('non-diners are not reminded: no MEAL_REMINDER, ATTENDANCE_CONFIRMATION, DISCREPANCY_ALERT or menu MEAL_UPDATE for dines: false', async () => {
    const { manager, student } = members;
    const nonDiningManager = await member('manager', 'email');
    const nonDiningStudent = await member('student', 'email');
    const day = addDays(today(), 9);
    // marked while they dined; then the admin says they no longer do
    const mark = { date: day, mealType: 'Dinner', status: 'present' };
    expect((await t.post('/attendance', mark, { token: nonDiningStudent.token })).status).toBe(201);
    expect((await t.post('/attendance', mark, { token: student.token })).status).toBe(201);
    for (const m of [nonDiningManager, nonDiningStudent]) {
      const set = await t.put(`/users/${m.id}/dines`, { dines: false }, { token: suite.admin });
      expect(set.status).toBe(200);
    }
    const at = (time: string) => zonedInstant(day, time, TZ);
    const onDay = async (m: Member, type: string) =>
      (await received(m, type)).filter((x) => `${x.title} ${x.content}`.includes(day));

    // the schedules' handlers called directly run in the first mess, as its tick would
    await inMess(FIRST_MESS_ID, () => n.schedules.mealReminders(at('19:00')));
    await inMess(FIRST_MESS_ID, () => n.schedules.attendanceConfirmations(at('19:05')));
    await n.settle();
    expect(await onDay(manager, 'MEAL_REMINDER')).toHaveLength(1);
    expect(await onDay(nonDiningManager, 'MEAL_REMINDER')).toHaveLength(0);
    expect(await onDay(student, 'ATTENDANCE_CONFIRMATION')).toHaveLength(1);
    expect(await onDay(nonDiningStudent, 'ATTENDANCE_CONFIRMATION')).toHaveLength(0);

    // nor told of the menu: a menu published goes to the members who dine
    await publishMenu(day, 'Lunch', ['Poha', 'Chai']);
    await n.settle();
    const menu = async (m: Member) =>
      (await onDay(m, 'MEAL_UPDATE')).filter((x) => x.title === `Menu published: Lunch on ${day}`);
    expect(await menu(student)).toHaveLength(1);
    expect(await menu(nonDiningStudent)).toHaveLength(0);
    expect(await menu(nonDiningManager)).toHaveLength(0);

    // a mark after the meal: the dining managers are alerted, the non-dining one is not
    const past = addDays(today(), -9);
    const late = { date: past, mealType: 'Dinner', status: 'present' };
    expect((await t.post('/attendance', late, { token: student.token })).status).toBe(201);
    await n.settle();
    const alerted = async (m: Member) =>
      (await received(m, 'DISCREPANCY_ALERT')).filter((x) => x.title.includes(past));
    expect(await alerted(manager)).toHaveLength(1);
    expect(await alerted(nonDiningManager)).toHaveLength(0);
  });
});
