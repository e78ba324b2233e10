import { messSetup, TestApp } from '../support/app';
import { fixClock } from '../support/notifications';

type Member = Awaited<ReturnType<TestApp['member']>>;

/** An instant of the mess's clock (Asia/Kolkata, +05:30). */
const ist = (date: string, time: string) => new Date(`${date}T${time}:00+05:30`);

describe('Who marks what (extension 2.1)', () => {
  let t: TestApp;
  let admin: string;
  let manager: Member;
  let asha: Member;
  let ravi: Member;

  const mark = (token: string, date: string, mealType: string, status: string, userId?: string) =>
    t.post('/attendance', { date, mealType, status, ...(userId ? { userId } : {}) }, { token });

  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.adminToken();
    fixClock(t, ist('2030-03-10', '10:00'));
    expect((await t.post('/auth/admin/setup', messSetup(), { token: admin })).status).toBe(200);
    manager = await t.member('manager');
    asha = await t.member('student', { fullName: 'Asha Verma' });
    ravi = await t.member('student', { fullName: 'Ravi Kumar' });
  }, 90_000);
  afterAll(() => t.close());

  it("keeps a manager's bulk mark as the kitchen's record: the member cannot replace it", async () => {
    const bulk = await t.post(
      '/attendance/bulk',
      { date: '2030-03-09', mealType: 'Lunch', marks: [{ userId: asha.id, status: 'present' }] },
      { token: manager.token },
    );
    expect(bulk.status).toBe(201);
    expect(bulk.body.attendance[0].source).toBe('mess');
    const own = await mark(asha.token, '2030-03-09', 'Lunch', 'absent');
    expect(own.status).toBe(409);
    expect(own.body.error).toBe('This mark was made by the mess; ask a manager to change it');
    const put = await t.put(
      `/attendance/${bulk.body.attendance[0]._id}`,
      { status: 'absent' },
      { token: asha.token },
    );
    expect(put.status).toBe(409);
    // Re-stating the same status is no change: 200.
    expect((await mark(asha.token, '2030-03-09', 'Lunch', 'present')).status).toBe(200);
    // A manager corrects it at any time.
    const fixed = await mark(manager.token, '2030-03-09', 'Lunch', 'absent', asha.id);
    expect(fixed.status).toBe(200);
    expect(fixed.body.attendance).toMatchObject({ status: 'absent', source: 'mess', markedBy: manager.id });
    // Both marks came after the meal ended: each is in the audit trail.
    const trail = await t.get(`/audit?entity=attendance&entityId=${fixed.body.attendance._id}`, {
      token: admin,
    });
    expect(trail.body.events.map((e: any) => [e.action, e.before?.status ?? null, e.after.status])).toEqual([
      ['changed-after-meal', 'present', 'absent'],
      ['marked-after-meal', null, 'present'],
    ]);
  });

  it('lets the member change their own marks as before', async () => {
    expect((await mark(ravi.token, '2030-03-11', 'Dinner', 'present')).status).toBe(201);
    const changed = await mark(ravi.token, '2030-03-11', 'Dinner', 'absent');
    expect(changed.status).toBe(200);
    expect(changed.body.attendance.source).toBe('member');
  });

  it('keeps members to the markingWindow when one is set; managers mark any time', async () => {
    const window = { daysAhead: 2, closesMinutesAfterEnd: 60 };
    expect(
      (await t.put('/auth/admin/config', messSetup({ markingWindow: window }), { token: admin })).status,
    ).toBe(200);
    expect((await t.get('/auth/admin/config', { token: admin })).body.config.markingWindow).toEqual(window);
    const tooFar = await mark(asha.token, '2030-03-13', 'Lunch', 'present');
    expect(tooFar.status).toBe(409);
    expect(tooFar.body.error).toBe('Marking for this meal is closed');
    expect((await mark(asha.token, '2030-03-12', 'Lunch', 'present')).status).toBe(201);
    // Breakfast today ended at 09:30: open until 10:30 (now 10:00); yesterday's dinner is closed.
    expect((await mark(asha.token, '2030-03-10', 'Breakfast', 'present')).status).toBe(201);
    expect((await mark(asha.token, '2030-03-09', 'Dinner', 'present')).status).toBe(409);
    expect((await mark(asha.token, '2000-01-01', 'Dinner', 'present')).status).toBe(409);
    expect((await mark(manager.token, '2030-03-09', 'Dinner', 'present', asha.id)).status).toBe(201);
    // PUT replaces the whole configuration: leaving the window out removes it.
    expect((await t.put('/auth/admin/config', messSetup(), { token: admin })).status).toBe(200);
    expect((await mark(asha.token, '2030-03-20', 'Lunch', 'present')).status).toBe(201);
  });

  it('refuses a window out of range (400 naming the field)', async () => {
    const res = await t.put(
      '/auth/admin/config',
      messSetup({ markingWindow: { daysAhead: 61, closesMinutesAfterEnd: 0 }, leavePolicy: { minDays: 0 } }),
      { token: admin },
    );
    expect(res.status).toBe(400);
    const fields = res.body.details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['markingWindow.daysAhead', 'leavePolicy.minDays']));
  });

  it('leaves members who do not dine out of the figures, and stops them marking their own meals', async () => {
    // The admin the service created at first start does not dine.
    const me = await t.get('/auth/verify', { token: admin });
    const adminId = me.body.user?._id ?? me.body.user?.id;
    const adminUser = await t.get(`/users/${adminId}`, { token: admin });
    expect(adminUser.body.user.dines).toBe(false);
    expect((await mark(admin, '2030-03-10', 'Lunch', 'present')).status).toBe(409);
    const before = await t.get('/analytics/headcount?date=2030-03-10', { token: admin });
    expect(before.body.approvedMembers).toBe(3);
    const set = await t.put(`/users/${ravi.id}/dines`, { dines: false }, { token: admin });
    expect(set.status).toBe(200);
    expect(set.body.user.dines).toBe(false);
    const own = await mark(ravi.token, '2030-03-10', 'Lunch', 'present');
    expect(own.status).toBe(409);
    expect(own.body.error).toBe('You do not dine at the mess, so you have no meals to mark');
    const after = await t.get('/analytics/headcount?date=2030-03-10', { token: admin });
    expect(after.body.approvedMembers).toBe(2);
    const figures = await t.get('/analytics/attendance?month=2030-03', { token: admin });
    expect(figures.body.analytics.totalMembers).toBe(2);
    expect((await t.put(`/users/${ravi.id}/dines`, { dines: 'no' }, { token: admin })).status).toBe(400);
    expect((await t.put(`/users/${ravi.id}/dines`, { dines: true }, { token: asha.token })).status).toBe(403);
  });
  it('gives marks time-ordered ids (UUID version 7): a later mark does not sort before an earlier one', async () => {
    const before = Date.now();
    const first = await mark(manager.token, '2030-03-08', 'Lunch', 'present', asha.id);
    const second = await mark(manager.token, '2030-03-08', 'Dinner', 'present', asha.id);
    expect([first.status, second.status]).toEqual([201, 201]);
    const ids = [first.body.attendance._id as string, second.body.attendance._id as string];
    // The first 48 bits are the database's clock in milliseconds when the row was made (two rows of one millisecond
    // are in random order).
    const made = ids.map((id) => parseInt(id.replace(/-/g, '').slice(0, 12), 16));
    for (const [i, id] of ids.entries()) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(made[i]).toBeGreaterThanOrEqual(before - 60_000);
      expect(made[i]).toBeLessThanOrEqual(Date.now() + 60_000);
    }
    expect(made[0]).toBeLessThanOrEqual(made[1]);
  });
});
