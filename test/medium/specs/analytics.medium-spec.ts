import { AnalyticsModule } from '../../../src/modules/analytics';
import { AnalyticsService } from '../../../src/modules/analytics/analytics.service';
import { toUniversityViewResponse } from '../../../src/modules/analytics/university-view';
import { UniversityViewService } from '../../../src/modules/analytics/university-view.service';
import { AccountsService } from '../../../src/modules/accounts';
import { MonthClosingService } from '../../../src/modules/billing/month-closing.service';
import { ExpenseBodyDto } from '../../../src/modules/expenses/dto/expense.requests';
import { ExpensesService } from '../../../src/modules/expenses/expenses.service';
import { LeaveModule } from '../../../src/modules/leave';
import { CreateLeaveDto } from '../../../src/modules/leave/dto/leave.requests';
import { LeaveService } from '../../../src/modules/leave/leave.service';
import { type MediumContext, type MediumMember, MESS_B_SETUP, newMedium } from '../medium.factory';

const MONTH = '2030-01';

/**
 * The dashboards in two messes, on hand-computed months: A's spending, attendance, health score and headcount count
 * A's expenses, marks, ratings, diners and meal times only, B's the same of B (each cached for its own mess, and a
 * write in one never moves the other's answer); the university's view puts both messes' month side by side with
 * totals that add the rows to the paisa. What /analytics answers over HTTP: test/e2e/analytics*.e2e-spec.ts.
 *
 * January 2030, by hand:
 *   A (Breakfast, Lunch, Dinner; 4 diners: the admin, a1–a3): expenses ₹1,234.56 + ₹0.10 Groceries, ₹765.44 Gas =
 *     ₹2,000.10; present a1 3, a2 2, a3 1 = 6 marks in 3 served slots (Breakfast 1, Lunch 1, Dinner 1); ratings 5
 *     and 2 (mean 3.5).
 *   B (Breakfast, Lunch, Supper; 3 diners: its admin, b1, b2): ₹999.99 Provisions, ₹0.01 Fuel, ₹500 Groceries =
 *     ₹1,500.00; present b1 3, b2 1 = 4 marks in 3 served slots (Lunch 1, Supper 2); one rating of 1.
 * The tests run in order: the last closes A's January.
 */
describe('Analytics (medium): two messes', () => {
  let ctx: MediumContext;
  let inB: MediumContext;
  let aAdmin: MediumMember;
  let a1: MediumMember;
  let a2: MediumMember;
  let a3: MediumMember;
  let bAdmin: MediumMember;
  let b1: MediumMember;
  let b2: MediumMember;

  beforeAll(async () => {
    // 15 February 2030, 11:30 in the mess's time zone: January is over, February has begun.
    ctx = await newMedium({
      imports: [AnalyticsModule, LeaveModule],
      now: new Date('2030-02-15T06:00:00Z'),
    });
    inB = ctx.as(ctx.messes.b);
    aAdmin = await ctx.newMember('admin', { fullName: 'Anand Admin' });
    // A: Breakfast 07:30, Lunch 12:30, Dinner 19:30; 'Hostel 7 Mess'. B: MESS_B_SETUP.
    await ctx.setUpMess(aAdmin);
    a1 = await ctx.newMember('student', { fullName: 'Asha One' });
    a2 = await ctx.newMember('student', { fullName: 'Bina Two' });
    a3 = await ctx.newMember('student', { fullName: 'Chetan Three' });
    bAdmin = ctx.messes.b.admin!;
    b1 = await inB.newMember('student', { fullName: 'Bimal One' });
    b2 = await inB.newMember('student', { fullName: 'Bela Two' });

    for (const [at, category, amount, date, by] of [
      [ctx, 'Groceries', 1234.56, '2030-01-05', aAdmin],
      [ctx, 'Gas', 765.44, '2030-01-20', aAdmin],
      [ctx, 'Groceries', 0.1, '2030-01-31', aAdmin],
      // outside January: December (no year of 2030) and February (the year's second month)
      [ctx, 'Gas', 50, '2029-12-31', aAdmin],
      [ctx, 'Gas', 99.91, '2030-02-10', aAdmin],
      // B: a category named as one of A's, which must not merge with it
      [inB, 'Provisions', 999.99, '2030-01-05', bAdmin],
      [inB, 'Fuel', 0.01, '2030-01-06', bAdmin],
      [inB, 'Groceries', 500, '2030-01-31', bAdmin],
    ] as const) {
      await at.newExpense({ category, amount, date, recordedBy: by.id });
    }
    for (const [at, member, date, mealType, status] of [
      [ctx, a1, '2030-01-03', 'Lunch', 'present'],
      [ctx, a1, '2030-01-04', 'Dinner', 'present'],
      [ctx, a1, '2030-01-05', 'Breakfast', 'present'],
      [ctx, a2, '2030-01-04', 'Dinner', 'present'],
      [ctx, a2, '2030-01-05', 'Breakfast', 'present'],
      [ctx, a3, '2030-01-04', 'Dinner', 'present'],
      [ctx, a3, '2030-01-06', 'Lunch', 'absent'],
      // outside January: must not count
      [ctx, a1, '2029-12-31', 'Dinner', 'present'],
      [inB, b1, '2030-01-03', 'Lunch', 'present'],
      [inB, b1, '2030-01-04', 'Supper', 'present'],
      [inB, b1, '2030-01-05', 'Supper', 'present'],
      [inB, b2, '2030-01-05', 'Supper', 'present'],
    ] as const) {
      await at.newMark({ userId: member.id, date, mealType, status });
    }
    await ctx.newFeedback({ userId: a1.id, date: '2030-01-03', mealType: 'Lunch', rating: 5 });
    await ctx.newFeedback({ userId: a2.id, date: '2030-01-04', mealType: 'Dinner', rating: 2 });
    await inB.newFeedback({ userId: b1.id, date: '2030-01-03', mealType: 'Lunch', rating: 1 });
  });
  afterAll(() => ctx?.close());

  const analytics = (at: MediumContext) => at.get(AnalyticsService);
  const paise = (rupees: number) => Math.round(rupees * 100);

  it("A's spending of a month is A's expenses to the paisa; B's is B's, its same-named category apart", async () => {
    // A first, so that B's answer could only be A's from a cache that ignored the mess
    const a = await analytics(ctx).expenseAnalytics({ month: MONTH });
    expect(a).toEqual({
      success: true,
      analytics: {
        totalExpenses: 2000.1,
        monthlyAverage: 2000.1,
        categoryBreakdown: { Groceries: 1234.66, Gas: 765.44 },
        trend: [{ month: MONTH, amount: 2000.1 }],
      },
    });
    const b = await analytics(inB).expenseAnalytics({ month: MONTH });
    expect(b.analytics).toEqual({
      totalExpenses: 1500,
      monthlyAverage: 1500,
      categoryBreakdown: { Provisions: 999.99, Fuel: 0.01, Groceries: 500 },
      trend: [{ month: MONTH, amount: 1500 }],
    });
    // the categories add up to the total, in paise
    const sum = (breakdown: Record<string, number>) =>
      Object.values(breakdown).reduce((total, rupees) => total + paise(rupees), 0);
    expect(sum(a.analytics.categoryBreakdown)).toBe(200010);
    expect(sum(b.analytics.categoryBreakdown)).toBe(150000);
    // and A's again: still A's
    expect((await analytics(ctx).expenseAnalytics({ month: MONTH })).analytics.totalExpenses).toBe(2000.1);
  });

  it("a year's trend has its 12 months, adds up to the total to the paisa, and averages over the months begun", async () => {
    const a = (await analytics(ctx).expenseAnalytics({ year: '2030' })).analytics;
    expect(a.trend).toHaveLength(12);
    expect(a.trend.map((t) => t.month)).toEqual(
      Array.from({ length: 12 }, (_, i) => `2030-${String(i + 1).padStart(2, '0')}`),
    );
    expect(a.trend.slice(0, 3)).toEqual([
      { month: '2030-01', amount: 2000.1 },
      { month: '2030-02', amount: 99.91 },
      { month: '2030-03', amount: 0 },
    ]);
    // 210001 paise; December 2029's ₹50 is another year's
    expect(a.totalExpenses).toBe(2100.01);
    expect(a.trend.reduce((total, t) => total + paise(t.amount), 0)).toBe(210001);
    // January and February have begun (it is February): 210001 / 2 = 105000.5 → 105001 paise
    expect(a.monthlyAverage).toBe(1050.01);
    expect(a.categoryBreakdown).toEqual({ Groceries: 1234.66, Gas: 865.35 });

    const b = (await analytics(inB).expenseAnalytics({ year: '2030' })).analytics;
    expect(b.totalExpenses).toBe(1500);
    expect(b.monthlyAverage).toBe(750);
    expect(b.trend.filter((t) => t.amount !== 0)).toEqual([{ month: '2030-01', amount: 1500 }]);
    // a year without spending: zeros, no division by zero
    const empty = (await analytics(inB).expenseAnalytics({ year: '2029' })).analytics;
    expect(empty).toMatchObject({ totalExpenses: 0, monthlyAverage: 0, categoryBreakdown: {} });
    expect(empty.trend).toHaveLength(12);
  });

  it("A's attendance of a month counts A's marks against A's diners and meal types; B's, B's (Supper, no Dinner)", async () => {
    const a = (await analytics(ctx).attendanceAnalytics({ month: MONTH })).analytics;
    expect(a).toEqual({
      totalMembers: 4,
      averageAttendance: 2, // 6 present / 3 slots
      attendanceRate: 0.5, // 6 / (4 × 3)
      byMealType: { Breakfast: 0.5, Lunch: 0.25, Dinner: 0.75 },
      presentMarks: 6,
      servedSlots: 3,
      period: { from: '2030-01-01', to: '2030-01-31' },
    });
    const b = (await analytics(inB).attendanceAnalytics({ month: MONTH })).analytics;
    expect(b).toEqual({
      totalMembers: 3,
      averageAttendance: 1.33, // 4 / 3
      attendanceRate: 0.4444, // 4 / (3 × 3)
      byMealType: { Breakfast: 0, Lunch: 0.3333, Supper: 0.5 },
      presentMarks: 4,
      servedSlots: 3,
      period: { from: '2030-01-01', to: '2030-01-31' },
    });
    expect(MESS_B_SETUP.mealTimes.map((m) => m.name)).toEqual(Object.keys(b.byMealType));
  });

  it('counts a custom period of days, and refuses a malformed one (400 naming the field)', async () => {
    const a = (await analytics(ctx).attendanceAnalytics({ startDate: '2030-01-04', endDate: '2030-01-05' }))
      .analytics;
    // 3 dinners on the 4th, 2 breakfasts on the 5th
    expect(a).toMatchObject({
      presentMarks: 5,
      servedSlots: 2,
      averageAttendance: 2.5,
      attendanceRate: 0.625, // 5 / (4 × 2)
      byMealType: { Breakfast: 0.5, Lunch: 0, Dinner: 0.75 },
      period: { from: '2030-01-04', to: '2030-01-05' },
    });
    const b = (await analytics(inB).attendanceAnalytics({ startDate: '2030-01-04', endDate: '2030-01-05' }))
      .analytics;
    expect(b).toMatchObject({ presentMarks: 3, servedSlots: 2, byMealType: { Supper: 0.5 } });

    const refused = async (query: object) =>
      ctx.refusal(
        analytics(ctx).attendanceAnalytics(query as Parameters<AnalyticsService['attendanceAnalytics']>[0]),
      );
    expect(await refused({ startDate: '2030-01-04' })).toEqual({
      status: 400,
      body: {
        success: false,
        error: 'Validation failed',
        details: [{ field: 'endDate', message: 'startDate and endDate go together' }],
      },
    });
    expect((await refused({ endDate: '2030-01-04' })).body).toMatchObject({
      details: [{ field: 'startDate', message: 'startDate and endDate go together' }],
    });
    expect(
      (await refused({ month: MONTH, startDate: '2030-01-01', endDate: '2030-01-02' })).body,
    ).toMatchObject({
      details: [{ field: 'month', message: 'give month or startDate/endDate, not both' }],
    });
    expect((await refused({ startDate: '2030-01-05', endDate: '2030-01-04' })).body).toMatchObject({
      details: [{ field: 'endDate', message: 'endDate must not be before startDate' }],
    });
    expect((await refused({ startDate: '2028-01-01', endDate: '2030-01-01' })).body).toMatchObject({
      details: [{ field: 'endDate', message: 'a period covers at most 24 months' }],
    });
  });

  it("scores each mess's health from its own ratings, attendance and spread of meals", async () => {
    // A: quality (3.5 − 1)/4 = 62.5; attendance 6/12 = 50; Jain(3,2,1) = 36/42 = 85.71…;
    //    overall 25 + 20 + 17.142… = 62.142… → 62.1
    expect(await analytics(ctx).health(MONTH)).toEqual({
      success: true,
      month: MONTH,
      healthScore: { mealQuality: 62.5, attendanceRate: 50, fairShareIndex: 85.7, overallScore: 62.1 },
    });
    // B: quality (1 − 1)/4 = 0 (A's ratings not mixed in); attendance 4/9 = 44.44…; Jain(3,1) = 16/20 = 80;
    //    overall 0 + 17.777… + 16 = 33.777… → 33.8
    expect((await analytics(inB).health(MONTH)).healthScore).toEqual({
      mealQuality: 0,
      attendanceRate: 44.4,
      fairShareIndex: 80,
      overallScore: 33.8,
    });
    // a month without marks or ratings in A: neutral quality, no attendance, a fair (empty) spread
    expect((await analytics(ctx).health('2029-11')).healthScore).toEqual({
      mealQuality: 50,
      attendanceRate: 0,
      fairShareIndex: 100,
      overallScore: 40,
    });
  });

  it("tells A's kitchen A's expected diners per meal, with A's leave and names; B's, B's", async () => {
    const day = '2030-02-20';
    // a3 is on leave for 20–21 February, recorded and approved by A's admin
    const leave = await ctx
      .get(LeaveService)
      .create(
        aAdmin.caller,
        await ctx.dto(CreateLeaveDto, {
          startDate: day,
          endDate: '2030-02-21',
          userId: a3.id,
          reason: 'home',
        }),
      );
    // (asked by an admin for a member: approved at once)
    expect(leave.status).toBe('approved');
    await ctx.newMark({ userId: a1.id, date: day, mealType: 'Lunch', status: 'present' });
    await ctx.newMark({ userId: a2.id, date: day, mealType: 'Lunch', status: 'absent' });
    await inB.newMark({ userId: b1.id, date: day, mealType: 'Supper', status: 'present' });

    expect(await analytics(ctx).headcount(day)).toEqual({
      success: true,
      date: day,
      approvedMembers: 4,
      meals: [
        { mealType: 'Breakfast', startTime: '07:30', expected: 0, absent: 0, onLeave: 1, unmarked: 3 },
        { mealType: 'Lunch', startTime: '12:30', expected: 1, absent: 1, onLeave: 1, unmarked: 1 },
        { mealType: 'Dinner', startTime: '19:30', expected: 0, absent: 0, onLeave: 1, unmarked: 3 },
      ],
    });
    const named = await analytics(ctx).headcount(day, true);
    expect(named.meals.map((m) => [m.mealType, m.unmarkedMembers?.map((u) => u.fullName)])).toEqual([
      ['Breakfast', ['Anand Admin', 'Asha One', 'Bina Two']],
      ['Lunch', ['Anand Admin']],
      ['Dinner', ['Anand Admin', 'Asha One', 'Bina Two']],
    ]);

    // B: its own meal times, its own diners, nobody of B on leave (a3's leave is A's)
    expect(await analytics(inB).headcount(day)).toEqual({
      success: true,
      date: day,
      approvedMembers: 3,
      meals: [
        { mealType: 'Breakfast', startTime: '08:00', expected: 0, absent: 0, onLeave: 0, unmarked: 3 },
        { mealType: 'Lunch', startTime: '13:00', expected: 0, absent: 0, onLeave: 0, unmarked: 3 },
        { mealType: 'Supper', startTime: '20:00', expected: 1, absent: 0, onLeave: 0, unmarked: 2 },
      ],
    });
    const bNamed = await analytics(inB).headcount(day, true);
    const supper = bNamed.meals.find((m) => m.mealType === 'Supper');
    expect(supper?.unmarkedMembers?.map((u) => u._id).sort()).toEqual([bAdmin.id, b2.id].sort());
  });

  it("a write in B shows in B's next answer at once and never moves A's cached one", async () => {
    // both cached
    expect((await analytics(ctx).expenseAnalytics({ month: MONTH })).analytics.totalExpenses).toBe(2000.1);
    expect((await analytics(inB).expenseAnalytics({ month: MONTH })).analytics.totalExpenses).toBe(1500);

    const written = await inB
      .get(ExpensesService)
      .record(
        bAdmin.caller,
        await inB.dto(ExpenseBodyDto, {
          category: 'Fuel',
          amount: 0.05,
          date: '2030-01-07',
          description: '',
        }),
      );
    const b = (await analytics(inB).expenseAnalytics({ month: MONTH })).analytics;
    expect(b.totalExpenses).toBe(1500.05);
    expect(b.categoryBreakdown.Fuel).toBe(0.06);
    expect((await analytics(ctx).expenseAnalytics({ month: MONTH })).analytics).toMatchObject({
      totalExpenses: 2000.1,
      categoryBreakdown: { Groceries: 1234.66, Gas: 765.44 },
    });

    await inB.get(ExpensesService).remove(bAdmin.caller, written.expense.id);
    expect((await analytics(inB).expenseAnalytics({ month: MONTH })).analytics.totalExpenses).toBe(1500);
    expect((await analytics(ctx).expenseAnalytics({ month: MONTH })).analytics.totalExpenses).toBe(2000.1);
  });

  it("the university's view has each mess's month, by name, with totals that add the rows to the paisa", async () => {
    const view = await ctx.get(UniversityViewService).view(MONTH);
    expect(view.month).toBe(MONTH);
    expect(view.rows.map((r) => [r.mess._id, r.mess.slug, r.mess.messName])).toEqual([
      [ctx.messes.b.id, 'mess-b', MESS_B_SETUP.messName], // 'Girls Hostel 2 Mess' before 'Hostel 7 Mess'
      [ctx.messes.a.id, 'main', 'Hostel 7 Mess'],
    ]);
    const [b, a] = view.rows;
    expect(a).toMatchObject({
      members: 4,
      activeMembers: 3,
      mealsServed: 6,
      totalPaise: 200010,
      attendanceRate: 0.5,
      averageRating: 3.5,
      healthScore: 62.1,
      duePaise: 0,
      expectedPlatesTomorrow: null,
      leftoverGramsPerDiner: null,
    });
    expect(b).toMatchObject({
      members: 3,
      activeMembers: 2,
      mealsServed: 4,
      totalPaise: 150000,
      attendanceRate: 0.4444,
      averageRating: 1,
      healthScore: 33.8,
      duePaise: 0,
    });
    expect(view.totals).toEqual({
      members: 7,
      activeMembers: 5,
      mealsServed: 10,
      totalPaise: 350010,
      duePaise: 0,
    });

    // In rupees: each costPerMeal from its own paise and meals, the totals' from the totals
    const response = toUniversityViewResponse(view);
    expect(response.messes.map((m) => [m.totalExpenses, m.costPerMeal])).toEqual([
      [1500, 375], // 150000 / 4
      [2000.1, 333.35], // 200010 / 6
    ]);
    expect(response.totals).toEqual({
      members: 7,
      activeMembers: 5,
      mealsServed: 10,
      totalExpenses: 3500.1,
      costPerMeal: 350.01, // 350010 / 10
      due: 0,
    });
    // The same view whichever mess asks: it spans the messes on purpose
    expect(await inB.get(UniversityViewService).view(MONTH)).toEqual(view);
  });

  it("each row's attendance and health are exactly what that mess's own analytics answer", async () => {
    const view = await ctx.get(UniversityViewService).view(MONTH);
    expect(view.rows).toHaveLength(2);
    const row = (messId: string) => view.rows.find((r) => r.mess._id === messId)!;
    for (const [at, messId] of [
      [ctx, ctx.messes.a.id],
      [inB, ctx.messes.b.id],
    ] as const) {
      const own = await analytics(at).attendanceAnalytics({ month: MONTH });
      const health = await analytics(at).health(MONTH);
      expect([messId, row(messId).attendanceRate, row(messId).healthScore]).toEqual([
        messId,
        own.analytics.attendanceRate,
        health.healthScore.overallScore,
      ]);
      expect(row(messId).mealsServed).toBe(own.analytics.presentMarks);
      expect(row(messId).members).toBe(own.analytics.totalMembers);
    }
  });

  it("closing A's month charges A's dues only: A's row owes its month to the paisa, B's owes nothing, figures kept", async () => {
    const closed = await ctx.get(MonthClosingService).close(MONTH, aAdmin.id);
    expect(closed.closed).toBe(true);
    // 200010 × 3/6, × 2/6, × 1/6
    expect(
      Object.fromEntries(
        (await ctx.get(AccountsService).dueBalances()).map((d) => [d.userId, d.balancePaise]),
      ),
    ).toEqual({ [a1.id]: 100005, [a2.id]: 66670, [a3.id]: 33335 });
    expect(await inB.get(AccountsService).dueBalances()).toEqual([]);

    const view = await ctx.get(UniversityViewService).view(MONTH);
    expect(view.rows.map((r) => [r.mess.slug, r.duePaise])).toEqual([
      ['mess-b', 0],
      ['main', 200010],
    ]);
    expect(view.totals.duePaise).toBe(200010);
    // A's closed month is scored from its frozen figures: the same as before the close; B's month is untouched
    expect((await analytics(ctx).health(MONTH)).healthScore.overallScore).toBe(62.1);
    expect((await analytics(ctx).attendanceAnalytics({ month: MONTH })).analytics.presentMarks).toBe(6);
    expect((await analytics(inB).health(MONTH)).healthScore.overallScore).toBe(33.8);
    expect((await analytics(ctx).expenseAnalytics({ month: MONTH })).analytics.totalExpenses).toBe(2000.1);
  });
});
