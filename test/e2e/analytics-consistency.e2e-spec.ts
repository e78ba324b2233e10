import { sql } from 'drizzle-orm';
import { CacheStats } from '../../src/common/stats/service-stats';
import { FIRST_MESS_ID, inMess } from '../../src/common/tenancy/mess-scope';
import { Database } from '../../src/database/database';
import { MonthCache } from '../../src/modules/billing/month-cache';
import { BillingRepository } from '../../src/modules/billing/billing.repository';
import { BillingService } from '../../src/modules/billing/billing.service';
import { messSetup, TestApp } from '../support/app';

type Member = Awaited<ReturnType<TestApp['member']>>;

/** The members below belong to the first mess: a statement or a service called directly acts in it. */
const inFirstMess = <T>(work: () => Promise<T>): Promise<T> => inMess(FIRST_MESS_ID, work);

const MEALS = ['Breakfast', 'Lunch', 'Dinner'] as const;
const day = (month: string, d: number) => `${month}-${String(d).padStart(2, '0')}`;

/**
 * Closing a month, repairing its kept figures and caching its figures while writes are in flight. On the PostgreSQL server
 * (TEST_DATABASE_URL) the app runs with a pool of 3 connections, so a close that read outside its own transaction
 * would wait for a connection held by a writer that waits for the close.
 */
describe('Analytics under concurrent writes', () => {
  let t: TestApp;
  let admin: string;
  let manager: Member;
  let treasurer: Member;
  let crowd: Member[];

  const markFor = (m: Member, date: string, mealType: string, status = 'present') =>
    t.post('/attendance', { userId: m.id, date, mealType, status }, { token: manager.token });
  const spend = (amount: number, date: string) =>
    t.post('/expenses', { category: 'Gas', amount, date, description: '' }, { token: manager.token });
  const close = (month: string) =>
    t.post(`/analytics/months/${month}/close`, undefined, { token: treasurer.token });
  const get = async (path: string) => {
    const res = await t.get(path, { token: manager.token });
    expect([path, res.status]).toEqual([path, 200]);
    return res.body;
  };

  /** Attendance and health figures of a closed month agree with its frozen bill. */
  const expectFiguresMatchBill = async (month: string) => {
    const bill = await get(`/analytics/shares?month=${month}&method=proportional`);
    expect(bill.closed).toBe(true);
    const attendance = (await get(`/analytics/attendance?month=${month}`)).analytics;
    expect(attendance.presentMarks).toBe(bill.totalMeals);
    const health = (await get(`/analytics/health?month=${month}`)).healthScore;
    const served = attendance.servedSlots;
    const expectedRate = served === 0 ? 0 : (bill.totalMeals / (attendance.totalMembers * served)) * 100;
    expect(health.attendanceRate).toBe(Math.round(expectedRate * 10) / 10);
    return { bill, attendance };
  };

  beforeAll(async () => {
    t = await TestApp.start({ DB_POOL_MAX: '3' });
    admin = await t.adminToken();
    await t.post('/auth/admin/setup', messSetup({ expenseCategories: ['Gas'] }), { token: admin });
    manager = await t.member('manager');
    treasurer = await t.member('treasurer');
    crowd = await Promise.all(Array.from({ length: 5 }, () => t.member('student')));
  }, 90_000);
  afterAll(() => t?.close());

  it('closes a month while 30 marks into it are in flight: every mark lands before the close or is refused', async () => {
    const month = '2024-11';
    expect((await spend(3000, day(month, 1))).status).toBe(201);
    expect((await markFor(crowd[0], day(month, 1), 'Lunch')).status).toBe(201);
    await get(`/analytics/shares?month=${month}`); // stored and cached before the burst

    const slots = crowd.flatMap((m) =>
      [2, 3].flatMap((d) => MEALS.map((meal) => ({ m, date: day(month, d), meal }))),
    );
    expect(slots).toHaveLength(30);
    const marks = slots.map((s) => markFor(s.m, s.date, s.meal));
    const closing = close(month);
    const [closed, ...results] = await Promise.all([closing, ...marks]);

    expect([closed.status, closed.body.error]).toEqual([200, undefined]);
    const statuses = results.map((r) => r.status);
    expect(results.filter((r) => r.status !== 201 && r.status !== 409).map((r) => [r.status, r.body])).toEqual([]);
    const landed = statuses.filter((s) => s === 201).length;
    const { bill } = await expectFiguresMatchBill(month);
    expect(bill.totalMeals).toBe(1 + landed);
    expect(closed.body.totalMeals).toBe(1 + landed);
  }, 60_000);

  it('keeps attendance and health figures of a month closed right after a run of marks', async () => {
    const month = '2024-10';
    expect((await spend(1200, day(month, 5))).status).toBe(201);
    await get(`/analytics/attendance?month=${month}`); // an empty month stored and cached before the marks
    for (const [i, m] of crowd.entries()) {
      for (let d = 1; d <= i + 1; d += 1)
        expect((await markFor(m, day(month, d), 'Dinner')).status).toBe(201);
    }
    // no read in between: the close reads the figures the marks moved
    expect((await close(month)).status).toBe(200);
    const { bill, attendance } = await expectFiguresMatchBill(month);
    expect(bill.totalMeals).toBe(15); // 1 + 2 + 3 + 4 + 5
    expect(attendance).toMatchObject({ presentMarks: 15, servedSlots: 5 });
    expect(bill.shares.map((s: { meals: number }) => s.meals)).toEqual([5, 4, 3, 2, 1]);
  });

  it('repairs kept figures of a closed month that disagree with its records, leaving the frozen bill', async () => {
    const month = '2024-07';
    expect((await spend(900, day(month, 3))).status).toBe(201);
    for (const [i, m] of crowd.slice(0, 3).entries()) {
      for (let d = 1; d <= i + 1; d += 1) expect((await markFor(m, day(month, d), 'Lunch')).status).toBe(201);
    }
    expect((await close(month)).status).toBe(200);
    const before = await expectFiguresMatchBill(month);
    expect(before.attendance).toMatchObject({ presentMarks: 6, servedSlots: 3 });

    // Figures damaged by hand (what the repair tool is for): they no longer agree with the records.
    const db = t.app.get(Database).db;
    const cache = t.app.get(MonthCache);
    const billing = t.app.get(BillingService);
    await inFirstMess(() => db.execute(sql`update month_member_meals set meals = meals + 7 where month = ${month}`));
    cache.clear();
    expect((await get(`/analytics/attendance?month=${month}`)).analytics.presentMarks).toBe(27);
    expect(await inFirstMess(() => billing.keptFigures(month))).not.toEqual(
      await inFirstMess(() => billing.rebuiltFigures(month)),
    );

    await inFirstMess(() => billing.rebuild(month));
    const after = await expectFiguresMatchBill(month);
    expect(after.attendance).toEqual(before.attendance);
    expect(after.bill).toEqual(before.bill);
  });

  it('closes a month on a pool of one connection', async () => {
    const one = await TestApp.start({ DB_POOL_MAX: '1' });
    try {
      const token = await one.adminToken();
      const member = await one.member('student');
      expect(
        (
          await one.post(
            '/attendance',
            { date: '2024-09-02', mealType: 'Lunch', status: 'present' },
            { token: member.token },
          )
        ).status,
      ).toBe(201);
      const closed = await one.post('/analytics/months/2024-09/close', undefined, { token });
      expect([closed.status, closed.body.error]).toEqual([200, undefined]);
      expect(closed.body).toMatchObject({ closed: true, totalMeals: 1 });
      const attendance = await one.get('/analytics/attendance?month=2024-09', { token });
      expect(attendance.body.analytics.presentMarks).toBe(1);
    } finally {
      await one.close();
    }
  }, 60_000);

  it('runs concurrent repairs of one month (as two replicas would) without a duplicate key', async () => {
    const month = '2024-08';
    for (const [i, m] of crowd.entries())
      expect((await markFor(m, day(month, i + 1), 'Lunch')).status).toBe(201);
    const billing = t.app.get(BillingService);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, () => inFirstMess(() => billing.rebuild(month))),
    );
    expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
    expect((await get(`/analytics/shares?month=${month}`)).totalMeals).toBe(5);
  }, 60_000);

  it('never shows a month between two repairs', async () => {
    const month = '2023-07';
    const repository = t.app.get(BillingRepository);
    const [x, y] = crowd;
    const row = (userId: string, meals: number) => ({ userId, mealType: 'Lunch', meals, absent: 0, presentDays: 1 });
    const before = { totalPaise: 100, rows: [row(x.id, 1)] };
    const after = { totalPaise: 200, rows: [row(x.id, 2), row(y.id, 2)] };
    const replace = (figures: typeof before) =>
      inFirstMess(() =>
        repository.monthTransaction(month, { pauseWrites: false }, (tx) =>
          repository.replaceFigures(tx, month, figures),
        ),
      );
    await replace(before);
    let writing = true;
    const writer = (async () => {
      for (let i = 0; i < 40; i += 1) await replace(i % 2 ? before : after);
      writing = false;
    })();
    const seen: string[] = [];
    while (writing) {
      const snapshot = await inFirstMess(() => repository.readMonth(month));
      seen.push(`${snapshot.totalPaise}:${snapshot.members.map((m) => m.meals).join(',')}`);
    }
    await writer;
    expect(seen.length).toBeGreaterThan(0);
    expect([...new Set(seen)].filter((s) => s !== '100:1' && s !== '200:2,2')).toEqual([]);
  }, 60_000);

  it('shows a new rating and a newly approved member at once, cached answers notwithstanding', async () => {
    const month = '2024-06';
    expect((await markFor(crowd[0], day(month, 3), 'Lunch')).status).toBe(201);
    expect((await get(`/analytics/health?month=${month}`)).healthScore.mealQuality).toBe(50); // nobody rated
    const rated = await t.post(
      '/feedback',
      { date: day(month, 3), mealType: 'Lunch', rating: 5 },
      { token: crowd[0].token },
    );
    expect(rated.status).toBe(201);
    expect((await get(`/analytics/health?month=${month}`)).healthScore.mealQuality).toBe(100);
    expect(
      (await t.put(`/feedback/${rated.body.feedback._id}`, { rating: 1 }, { token: crowd[0].token })).status,
    ).toBe(200);
    expect((await get(`/analytics/health?month=${month}`)).healthScore.mealQuality).toBe(0);

    const members = (await get(`/analytics/attendance?month=${month}`)).analytics.totalMembers;
    const reg = await t.post('/auth/register', {
      email: 'late-joiner@test.local',
      password: 'password-late-1',
      fullName: 'Late Joiner',
      collegeId: 'C-LATE',
      room: 'R-LATE',
      phone: '9876500999',
    });
    expect(reg.status).toBe(201);
    expect((await get(`/analytics/attendance?month=${month}`)).analytics.totalMembers).toBe(members); // pending
    expect((await t.put(`/users/${reg.body.userId}/approve`, undefined, { token: admin })).status).toBe(200);
    expect((await get(`/analytics/attendance?month=${month}`)).analytics.totalMembers).toBe(members + 1);
    expect((await t.put(`/users/${reg.body.userId}/reject`, undefined, { token: admin })).status).toBe(200);
    expect((await get(`/analytics/attendance?month=${month}`)).analytics.totalMembers).toBe(members);
  });

  it('counts one cache lookup per request, however many cached answers it is built from', async () => {
    const stats = t.app.get(CacheStats);
    const month = '2024-05';
    const count = async (path: string) => {
      const before = { hits: stats.hits, misses: stats.misses };
      await get(path);
      return { hits: stats.hits - before.hits, misses: stats.misses - before.misses };
    };
    expect(await count(`/analytics/health?month=${month}`)).toEqual({ hits: 0, misses: 1 });
    expect(await count(`/analytics/health?month=${month}`)).toEqual({ hits: 1, misses: 0 });
    expect(await count(`/analytics/shares?month=${month}&method=proportional`)).toEqual({
      hits: 0,
      misses: 1,
    });
    expect(await count(`/analytics/shares.csv?month=${month}&method=proportional`)).toEqual({
      hits: 0,
      misses: 1,
    });
    expect(await count(`/analytics/shares.csv?month=${month}&method=proportional`)).toEqual({
      hits: 1,
      misses: 0,
    });
  });
});
