import { FIRST_MESS_ID, inMess } from '../../src/common/tenancy/mess-scope';
import { BillingService } from '../../src/modules/billing/billing.service';
import { messSetup, TestApp } from '../support/app';

type Member = Awaited<ReturnType<TestApp['member']>>;

/**
 * Hand-computed fixture, March 2025: expenses ₹6,000 + ₹3,000 = ₹9,000; meals present A 3, B 2, C 1, D 0 (absent
 * only). Active members 3, meals 6.
 *   spec:         9000/3 × m/6  → A 1500, B 1000, C 500  (allocated 3000, unallocated 6000)
 *   proportional: 9000 × m/6    → A 4500, B 3000, C 1500 (allocated 9000)
 */
describe('Analytics and the monthly bill', () => {
  let t: TestApp;
  let admin: string;
  let manager: Member;
  let treasurer: Member;
  let a: Member;
  let b: Member;
  let c: Member;
  let d: Member;

  const mark = (m: Member, date: string, mealType: string, status = 'present') =>
    t.post('/attendance', { date, mealType, status }, { token: m.token });
  const spend = (category: string, amount: number, date: string, description = '') =>
    t.post('/expenses', { category, amount, date, description }, { token: manager.token });
  const shares = async (month: string, method: string, token = manager.token) => {
    const res = await t.get(`/analytics/shares?month=${month}&method=${method}`, { token });
    expect(res.status).toBe(200);
    return res.body;
  };
  const byName = (body: { shares: { fullName: string; share: number; meals: number }[] }) =>
    Object.fromEntries(body.shares.map((s) => [s.fullName, [s.meals, s.share]]));

  beforeAll(async () => {
    // A burst of 12 bulk marks waits for the pool's connections; on a loaded test machine the 1.5 s default can lapse.
    t = await TestApp.start({ DB_CONNECTION_TIMEOUT_MS: '20000' });
    admin = await t.adminToken();
    await t.post('/auth/admin/setup', messSetup(), { token: admin });
    manager = await t.member('manager', { fullName: 'Meera Manager' });
    treasurer = await t.member('treasurer', { fullName: 'Tara Treasurer' });
    a = await t.member('student', { fullName: 'A Member' });
    b = await t.member('student', { fullName: 'B Member' });
    c = await t.member('student', { fullName: 'C Member' });
    d = await t.member('student', { fullName: 'D Member' });

    expect((await spend('Groceries', 6000, '2025-03-05', 'Rice and dal')).status).toBe(201);
    expect((await spend('Gas', 3000, '2025-03-20', 'Two cylinders')).status).toBe(201);
    for (const [m, date, meal] of [
      [a, '2025-03-01', 'Breakfast'],
      [a, '2025-03-01', 'Lunch'],
      [a, '2025-03-31', 'Dinner'],
      [b, '2025-03-02', 'Lunch'],
      [b, '2025-03-03', 'Dinner'],
      [c, '2025-03-03', 'Dinner'],
    ] as const) {
      expect((await mark(m, date, meal)).status).toBe(201);
    }
    await mark(a, '2025-03-02', 'Breakfast', 'absent');
    await mark(d, '2025-03-02', 'Lunch', 'absent');
    // outside the month: must not count
    await mark(a, '2025-02-28', 'Dinner');
    await mark(b, '2025-04-01', 'Breakfast');
  }, 90_000);
  afterAll(() => t?.close());

  it('computes the hand-computed bill under both methods', async () => {
    const spec = await shares('2025-03', 'spec');
    expect(spec).toMatchObject({
      success: true,
      month: '2025-03',
      method: 'spec',
      totalExpenses: 9000,
      activeMembers: 3,
      totalMeals: 6,
      allocated: 3000,
      unallocated: 6000,
      closed: false,
    });
    expect(spec.shares).toEqual([
      {
        userId: { _id: a.id, fullName: 'A Member' },
        fullName: 'A Member',
        meals: 3,
        share: 1500,
        extras: 0,
        total: 1500,
      },
      {
        userId: { _id: b.id, fullName: 'B Member' },
        fullName: 'B Member',
        meals: 2,
        share: 1000,
        extras: 0,
        total: 1000,
      },
      {
        userId: { _id: c.id, fullName: 'C Member' },
        fullName: 'C Member',
        meals: 1,
        share: 500,
        extras: 0,
        total: 500,
      },
    ]);
    const proportional = await shares('2025-03', 'proportional');
    expect(proportional).toMatchObject({ totalExpenses: 9000, allocated: 9000, unallocated: 0 });
    expect(byName(proportional)).toEqual({
      'A Member': [3, 4500],
      'B Member': [2, 3000],
      'C Member': [1, 1500],
    });
    expect(
      proportional.shares.find((s: { userId: { _id: string } }) => s.userId._id === d.id),
    ).toBeUndefined();
  });

  it('handles a month without expenses and a month without meals without dividing by zero', async () => {
    const april = await shares('2025-04', 'spec'); // one meal (B), no expenses
    expect(april).toMatchObject({
      totalExpenses: 0,
      activeMembers: 1,
      totalMeals: 1,
      allocated: 0,
      unallocated: 0,
    });
    expect(april.shares).toEqual([
      {
        userId: { _id: b.id, fullName: 'B Member' },
        fullName: 'B Member',
        meals: 1,
        share: 0,
        extras: 0,
        total: 0,
      },
    ]);
    expect(
      (
        await t.post(
          '/expenses',
          { category: 'Gas', amount: 450.5, date: '2025-05-10' },
          { token: manager.token },
        )
      ).status,
    ).toBe(201);
    const may = await shares('2025-05', 'proportional'); // expenses, no meals
    expect(may).toMatchObject({
      totalExpenses: 450.5,
      activeMembers: 0,
      totalMeals: 0,
      allocated: 0,
      unallocated: 450.5,
      shares: [],
    });
  });

  it('gives each member their own line, and students nothing else', async () => {
    const mine = await t.get('/analytics/shares/me?month=2025-03&method=proportional', { token: c.token });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({
      month: '2025-03',
      method: 'proportional',
      meals: 1,
      share: 1500,
      totalExpenses: 9000,
    });
    const none = await t.get('/analytics/shares/me?month=2025-03', { token: d.token });
    expect(none.body).toMatchObject({ meals: 0, share: 0 });

    for (const path of [
      '/analytics/expenses',
      '/analytics/attendance',
      '/analytics/health',
      '/analytics/shares?month=2025-03',
      '/analytics/shares.csv?month=2025-03',
      '/analytics/headcount',
      '/analytics/months/2025-03',
    ]) {
      const res = await t.get(path, { token: a.token });
      expect([path, res.status, res.body]).toEqual([path, 403, { error: 'Forbidden' }]);
    }
    expect((await t.post('/analytics/months/2025-03/close', undefined, { token: a.token })).body).toEqual({
      error: 'Forbidden',
    });
    expect((await t.get('/analytics/shares/me')).body).toEqual({ error: 'No token' });
    // the treasurer and the admin read analytics too
    expect((await t.get('/analytics/shares?month=2025-03', { token: treasurer.token })).status).toBe(200);
    expect((await t.get('/analytics/shares?month=2025-03', { token: admin })).status).toBe(200);
  });

  it('rejects malformed periods and methods', async () => {
    for (const path of [
      '/analytics/shares?month=2025-13',
      '/analytics/shares?month=2025-03&method=equal',
      '/analytics/expenses?year=25',
      '/analytics/attendance?startDate=2025-03-01',
      '/analytics/attendance?startDate=2025-03-10&endDate=2025-03-01',
      '/analytics/attendance?startDate=2025-02-30&endDate=2025-03-01',
      '/analytics/headcount?date=2025-02-30',
      '/analytics/months/March',
    ]) {
      const res = await t.get(path, { token: manager.token });
      expect([path, res.status, res.body.success]).toEqual([path, 400, false]);
    }
  });

  it('follows attendance and expenses at once, with no manual step', async () => {
    expect((await mark(c, '2025-03-10', 'Lunch')).status).toBe(201); // C: 2 meals; 7 in all
    const after = await shares('2025-03', 'proportional');
    // 9000 × 3/7 = 3857.142857…, × 2/7 = 2571.428571… (twice): floors leave 2 paise, which go to the largest remainders
    expect(byName(after)).toEqual({
      'A Member': [3, 3857.14],
      'B Member': [2, 2571.43],
      'C Member': [2, 2571.43],
    });
    expect(after.allocated).toBe(9000);

    const expense = await spend('Groceries', 900, '2025-03-25');
    expect(after.totalExpenses).toBe(9000);
    expect((await shares('2025-03', 'proportional')).totalExpenses).toBe(9900);
    await t.delete(`/expenses/${expense.body.expense._id}`, { token: manager.token });
    expect((await shares('2025-03', 'proportional')).totalExpenses).toBe(9000);

    // changing a mark from present to absent takes the meal away
    const marked = await t.get(`/attendance?userId=${c.id}&date=2025-03-10`, { token: manager.token });
    await t.put(`/attendance/${marked.body.attendance[0]._id}`, { status: 'absent' }, { token: c.token });
    expect(byName(await shares('2025-03', 'spec'))['C Member']).toEqual([1, 500]);
  });

  it('keeps a burst of bulk marks in the month figures as they are written, equal to a rebuild from the marks', async () => {
    const crowd = await Promise.all(
      Array.from({ length: 12 }, (_, i) => t.member('student', { fullName: `Crowd ${i}` })),
    );
    await shares('2025-06', 'proportional'); // computed once, before the burst
    const slots = Array.from({ length: 28 }, (_, i) => `2025-06-${String(i + 1).padStart(2, '0')}`).flatMap(
      (date) => ['Breakfast', 'Lunch', 'Dinner'].map((mealType) => ({ date, mealType })),
    );
    for (let i = 0; i < slots.length; i += 12) {
      const batch = slots.slice(i, i + 12);
      const results = await Promise.all(
        batch.map((slot) =>
          t.post(
            '/attendance/bulk',
            { ...slot, marks: crowd.map((m) => ({ userId: m.id, status: 'present' })) },
            { token: manager.token },
          ),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(batch.map(() => 201));
    }
    // 12 members × 84 meal slots = 1,008 marks, 12 concurrent bulk requests at a time: the figures the database kept
    // as they were written are those a rebuild from the marks gives, and the next read shows them all.
    const billing = t.app.get(BillingService);
    const kept = await inMess(FIRST_MESS_ID, () => billing.keptFigures('2025-06'));
    expect(kept).toEqual(await inMess(FIRST_MESS_ID, () => billing.rebuiltFigures('2025-06')));
    const june = await shares('2025-06', 'proportional');
    expect(june.totalMeals).toBe(1008);
    expect(june.shares.every((s: { meals: number }) => s.meals === 84)).toBe(true);
  });

  it('closes a month: the bill is frozen, writes into it are 409, the CSV matches to the paisa, and reopening is recorded', async () => {
    expect(
      (await t.post('/analytics/months/2025-03/close', undefined, { token: manager.token })).body,
    ).toEqual({ error: 'Forbidden' });
    const closed = await t.post('/analytics/months/2025-03/close', undefined, { token: treasurer.token });
    expect(closed.status).toBe(200);
    // the answer is the bill the close charged: the mess's chargeMethod, proportional by default
    expect(closed.body).toMatchObject({
      month: '2025-03',
      method: 'proportional',
      closed: true,
      totalExpenses: 9000,
      allocated: 9000,
    });
    expect(
      (await t.post('/analytics/months/2025-03/close', undefined, { token: treasurer.token })).status,
    ).toBe(409);

    const frozen = await shares('2025-03', 'proportional');
    for (const attempt of [
      await spend('Gas', 100, '2025-03-15'),
      await mark(d, '2025-03-15', 'Lunch'),
      await t.post(
        '/attendance/bulk',
        { date: '2025-03-16', mealType: 'Lunch', marks: [{ userId: d.id, status: 'present' }] },
        { token: manager.token },
      ),
    ]) {
      expect(attempt.status).toBe(409);
      expect(attempt.body).toEqual({
        success: false,
        error: 'Month 2025-03 is closed: its bill is frozen. An admin can reopen it.',
      });
    }
    const marchExpenses = await t.get('/expenses?startDate=2025-03-01&endDate=2025-03-31', {
      token: manager.token,
    });
    const one = marchExpenses.body.expenses[0];
    expect(
      (
        await t.put(
          `/expenses/${one._id}`,
          { category: one.category, amount: 1, date: one.date, description: 'x' },
          { token: manager.token },
        )
      ).status,
    ).toBe(409);
    expect((await t.delete(`/expenses/${one._id}`, { token: manager.token })).status).toBe(409);
    // moving an April expense into March is refused too
    const april = await spend('Gas', 10, '2025-04-02');
    expect(
      (
        await t.put(
          `/expenses/${april.body.expense._id}`,
          { category: 'Gas', amount: 10, date: '2025-03-02', description: '' },
          { token: manager.token },
        )
      ).status,
    ).toBe(409);
    expect(await shares('2025-03', 'proportional')).toEqual(frozen);

    // CSV = JSON, to the paisa
    const csv = await t.get('/analytics/shares.csv?month=2025-03&method=proportional', {
      token: treasurer.token,
    });
    expect(csv.status).toBe(200);
    expect(String(csv.headers['content-type'])).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe(
      'attachment; filename="mess-bill-2025-03-proportional.csv"',
    );
    expect(csv.body.startsWith('\uFEFF')).toBe(true);
    const [header, ...lines] = csv.body.slice(1).trim().split('\r\n');
    expect(header).toBe('month,member_id,full_name,meals,share_inr,extras_inr,total_inr,method,closed');
    expect(lines.map((l: string) => l.split(','))).toEqual(
      frozen.shares.map((s: { userId: { _id: string }; fullName: string; meals: number; share: number }) => [
        '2025-03',
        s.userId._id,
        s.fullName,
        String(s.meals),
        s.share.toFixed(2),
        '0.00',
        s.share.toFixed(2),
        'proportional',
        'true',
      ]),
    );
    const csvTotal = lines.reduce(
      (sum: number, l: string) => sum + Math.round(Number(l.split(',')[4]) * 100),
      0,
    );
    expect(csvTotal).toBe(Math.round(frozen.allocated * 100));

    // only an admin reopens, and it is recorded
    expect(
      (await t.post('/analytics/months/2025-03/reopen', undefined, { token: treasurer.token })).body,
    ).toEqual({ error: 'Forbidden' });
    const reopened = await t.post('/analytics/months/2025-03/reopen', undefined, { token: admin });
    expect(reopened.status).toBe(200);
    expect(reopened.body.closed).toBe(false);
    expect(reopened.body.history).toEqual([
      { action: 'close', at: expect.any(String), by: treasurer.id, byName: 'Tara Treasurer' },
      { action: 'reopen', at: expect.any(String), by: expect.any(String), byName: 'Mess Admin' },
    ]);
    expect((await t.post('/analytics/months/2025-03/reopen', undefined, { token: admin })).status).toBe(409);
    expect((await spend('Gas', 100, '2025-03-15')).status).toBe(201);
    expect((await shares('2025-03', 'proportional')).totalExpenses).toBe(9100);
  });

  it('reports expenses per month and category, exactly, with empty months as 0', async () => {
    await spend('Groceries', 0.1, '2025-07-01');
    await spend('Groceries', 0.2, '2025-07-02');
    const july = await t.get('/analytics/expenses?month=2025-07', { token: manager.token });
    expect(july.body.analytics).toEqual({
      totalExpenses: 0.3,
      monthlyAverage: 0.3,
      categoryBreakdown: { Groceries: 0.3 },
      trend: [{ month: '2025-07', amount: 0.3 }],
    });

    const year = (await t.get('/analytics/expenses?year=2025', { token: treasurer.token })).body.analytics;
    expect(year.trend).toHaveLength(12);
    expect(year.trend[0]).toEqual({ month: '2025-01', amount: 0 });
    expect(year.trend[2]).toEqual({ month: '2025-03', amount: 9100 });
    expect(year.trend[3]).toEqual({ month: '2025-04', amount: 10 });
    expect(year.trend[4]).toEqual({ month: '2025-05', amount: 450.5 });
    expect(year.trend[6]).toEqual({ month: '2025-07', amount: 0.3 });
    expect(year.totalExpenses).toBe(9560.8);
    expect(year.monthlyAverage).toBe(796.73); // 956080 paise / 12 months, rounded to the paisa
    expect(year.categoryBreakdown).toEqual({ Groceries: 6000.3, Gas: 3560.5 });
  });

  it('reports attendance against approved members and served slots', async () => {
    // March now: A 3, B 2, C 1 present; served slots: 03-01 B/L, 03-02 L, 03-03 D, 03-31 D = 5 (Breakfast 1, Lunch 2, Dinner 2)
    const res = await t.get('/analytics/attendance?month=2025-03', { token: manager.token });
    const approved = res.body.analytics.totalMembers;
    expect(approved).toBe(18); // manager, treasurer, A–D, 12 crowd members (the bootstrap admin does not dine)
    expect(res.body.analytics).toEqual({
      totalMembers: 18,
      averageAttendance: 1.2, // 6 present / 5 slots
      attendanceRate: Number((6 / (18 * 5)).toFixed(4)),
      byMealType: {
        Breakfast: Number((1 / 18).toFixed(4)),
        Lunch: Number((2 / (18 * 2)).toFixed(4)),
        Dinner: Number((3 / (18 * 2)).toFixed(4)),
      },
      presentMarks: 6,
      servedSlots: 5,
      period: { from: '2025-03-01', to: '2025-03-31' },
    });
    const range = await t.get('/analytics/attendance?startDate=2025-03-31&endDate=2025-04-01', {
      token: manager.token,
    });
    expect(range.body.analytics).toMatchObject({
      presentMarks: 2,
      servedSlots: 2,
      period: { from: '2025-03-31', to: '2025-04-01' },
    });
  });

  it('scores the month’s health from ratings, attendance and the spread of meals', async () => {
    await t.post(
      '/feedback',
      { date: '2025-03-01', mealType: 'Lunch', rating: 5, comment: 'Great' },
      { token: a.token },
    );
    await t.post('/feedback', { date: '2025-03-02', mealType: 'Lunch', rating: 3 }, { token: b.token });
    const res = await t.get('/analytics/health?month=2025-03', { token: manager.token });
    expect(res.status).toBe(200);
    // quality (4−1)/4 = 75; attendance 6/(18×5) = 6.666…% (18 diners); Jain(3,2,1) = 36/(3×14) = 0.857142… → 85.7
    const attendance = (6 / 90) * 100;
    const fair = (36 / 42) * 100;
    expect(res.body).toEqual({
      success: true,
      month: '2025-03',
      healthScore: {
        mealQuality: 75,
        attendanceRate: Math.round(attendance * 10) / 10,
        fairShareIndex: Math.round(fair * 10) / 10,
        overallScore: Math.round((0.4 * 75 + 0.4 * attendance + 0.2 * fair) * 10) / 10,
      },
    });
  });

  it('tells the kitchen how many to expect per meal', async () => {
    const res = await t.get('/analytics/headcount?date=2025-03-02', { token: manager.token });
    expect(res.body).toEqual({
      success: true,
      date: '2025-03-02',
      approvedMembers: 18,
      meals: [
        { mealType: 'Breakfast', startTime: '07:30', expected: 0, absent: 1, onLeave: 0, unmarked: 17 },
        { mealType: 'Lunch', startTime: '12:30', expected: 1, absent: 1, onLeave: 0, unmarked: 16 },
        { mealType: 'Dinner', startTime: '19:30', expected: 0, absent: 0, onLeave: 0, unmarked: 18 },
      ],
    });
  });

  it('serves repeated reads from the cache and counts hits in the health summary', async () => {
    const before = (await t.get('/admin/health-summary', { token: admin })).body.cache;
    await t.get('/analytics/expenses?year=2025', { token: manager.token });
    await t.get('/analytics/expenses?year=2025', { token: manager.token });
    const after = (await t.get('/admin/health-summary', { token: admin })).body.cache;
    expect(after.hits).toBeGreaterThan(before.hits);
    expect(after.hitRate).toMatch(/^\d+\.\d{2}%$/);
    expect((await t.get('/health/cache')).body.info.cache.hits).toBe(after.hits);
  });

  it('names each member of the bill the same way under every method: userId {_id, fullName}, fullName kept', async () => {
    // The daily rate's lines are checked the same way in daily-rate.e2e-spec.ts.
    const names = new Map([a, b, c, d].map((m) => [m.id, m.fullName]));
    for (const method of ['spec', 'proportional']) {
      const lines = (await shares('2025-03', method)).shares as { userId: unknown; fullName: string }[];
      expect(lines.length).toBe(3);
      for (const line of lines) {
        const { _id } = line.userId as { _id: string };
        expect([method, line.userId]).toEqual([method, { _id, fullName: line.fullName }]);
        expect(line.fullName).toBe(names.get(_id));
      }
    }
  });
});
