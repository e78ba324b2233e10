import fc from 'fast-check';
import { FIRST_MESS_ID } from '../../src/common/tenancy/mess-scope';
import { Database } from '../../src/database/database';
import { messSetup, TestApp } from '../support/app';
import { asOwner } from '../support/owner-sql';

type Member = Awaited<ReturnType<TestApp['member']>>;

interface Row {
  mess: { _id: string; slug: string; messName: string };
  members: number;
  activeMembers: number;
  mealsServed: number;
  totalExpenses: number;
  costPerMeal: number;
  attendanceRate: number;
  averageRating: number | null;
  healthScore: number;
  due: number;
  expectedPlatesTomorrow: number | null;
  leftoverGramsPerDiner: number | null;
}
interface View {
  success: true;
  month: string;
  messes: Row[];
  totals: Omit<
    Row,
    | 'mess'
    | 'attendanceRate'
    | 'averageRating'
    | 'healthScore'
    | 'expectedPlatesTomorrow'
    | 'leftoverGramsPerDiner'
  >;
}
interface Entry {
  kind: string;
  direction: 'debit' | 'credit';
  amount: number;
  month: string | null;
}

const paise = (rupees: number) => Math.round(rupees * 100);
/** Half up to the paisa, 0 without meals: what the view must answer, computed here in integers. */
const costPerMeal = (totalPaise: number, meals: number) =>
  meals === 0 ? 0 : Math.floor((2 * totalPaise + meals) / (2 * meals)) / 100;

/** Every row of the view as that mess's own endpoints give it (asked as an admin naming the mess). */
async function expectRowsMatchOwnAnalytics(t: TestApp, admin: string, view: View): Promise<void> {
  const get = async (path: string) => {
    const res = await t.get(path, { token: admin });
    expect([path, res.status]).toEqual([path, 200]);
    return res.body;
  };
  for (const row of view.messes) {
    const q = `month=${view.month}&mess=${row.mess.slug}`;
    const attendance = (await get(`/analytics/attendance?${q}`)).analytics;
    const health = (await get(`/analytics/health?${q}`)).healthScore;
    const bill = await get(`/analytics/shares?${q}`);
    const spending = (await get(`/analytics/expenses?${q}`)).analytics;
    const accounts = await get(`/accounts?mess=${row.mess.slug}&limit=100`);
    expect({ slug: row.mess.slug, ...row }).toEqual({
      slug: row.mess.slug,
      mess: row.mess,
      members: attendance.totalMembers,
      activeMembers: bill.activeMembers,
      mealsServed: attendance.presentMarks,
      totalExpenses: spending.totalExpenses,
      costPerMeal: costPerMeal(paise(spending.totalExpenses), attendance.presentMarks),
      attendanceRate: attendance.attendanceRate,
      averageRating: row.averageRating,
      healthScore: health.overallScore,
      due: accounts.totals.due,
      // Checked against the kitchen's own routes in kitchen.e2e-spec.ts.
      expectedPlatesTomorrow: row.expectedPlatesTomorrow,
      leftoverGramsPerDiner: (await get(`/kitchen/waste?${q}`)).summary.perDinerGrams,
    });
    // The bill counts the same meals and spending.
    expect([bill.totalMeals, bill.totalExpenses]).toEqual([row.mealsServed, row.totalExpenses]);
  }
}

/** The totals add the rows exactly, in paise; their costPerMeal is computed from the totals. */
function expectTotalsAddUp(view: View): void {
  const sum = (pick: (row: Row) => number) => view.messes.reduce((total, row) => total + pick(row), 0);
  const totalPaise = sum((r) => paise(r.totalExpenses));
  expect(view.totals).toEqual({
    members: sum((r) => r.members),
    activeMembers: sum((r) => r.activeMembers),
    mealsServed: sum((r) => r.mealsServed),
    totalExpenses: totalPaise / 100,
    costPerMeal: costPerMeal(
      totalPaise,
      sum((r) => r.mealsServed),
    ),
    due: sum((r) => paise(r.due)) / 100,
  });
}

/** Extension 2.2, the university's view: GET /analytics/messes, every mess's month side by side. */
describe("The university's view", () => {
  const MONTH = '2025-03';
  let t: TestApp;
  let admin: string;
  const mess: Record<'central' | 'boys' | 'girls', { id: string; manager: Member; treasurer: Member }> =
    {} as never;
  const students: Record<'central' | 'boys' | 'girls', Member[]> = { central: [], boys: [], girls: [] };

  const view = async (query = `?month=${MONTH}`): Promise<View> => {
    const res = await t.get(`/analytics/messes${query}`, { token: admin });
    expect(res.status).toBe(200);
    return res.body;
  };
  const ok = async (promise: Promise<{ status: number; body: unknown }>, status = 201) => {
    const res = await promise;
    expect([res.status, res.body]).toEqual([status, expect.objectContaining({ success: true })]);
    return res.body as any;
  };

  beforeAll(async () => {
    t = await TestApp.start({ MESS_TIMEZONE: 'Asia/Kolkata' });
    admin = await t.adminToken();
    await ok(t.post('/auth/admin/setup', messSetup({ messName: 'Central Mess' }), { token: admin }), 200);
    const boys = await ok(
      t.post('/messes', messSetup({ messName: 'Boys Hostel Mess', slug: 'boys' }), { token: admin }),
    );
    const girls = await ok(
      t.post('/messes', messSetup({ messName: 'Girls Hostel Mess', slug: 'girls' }), { token: admin }),
    );
    const ids = { central: FIRST_MESS_ID, boys: boys.mess._id, girls: girls.mess._id };
    for (const [key, messId] of Object.entries(ids) as [keyof typeof ids, string][]) {
      mess[key] = {
        id: messId,
        manager: await t.member('manager', { messId }),
        treasurer: await t.member('treasurer', { messId }),
      };
    }
    students.central = [await t.member(), await t.member(), await t.member()];
    students.boys = [
      await t.member('student', { messId: ids.boys }),
      await t.member('student', { messId: ids.boys }),
    ];
    students.girls = [await t.member('student', { messId: ids.girls })];

    const spend = (key: keyof typeof mess, amount: number, date: string, category = 'Groceries') =>
      ok(
        t.post('/expenses', { category, amount, date, description: '' }, { token: mess[key].manager.token }),
      );
    const present = (key: keyof typeof mess, members: Member[], date: string, mealType: string) =>
      ok(
        t.post(
          '/attendance/bulk',
          { date, mealType, marks: members.map((m) => ({ userId: m.id, status: 'present' })) },
          { token: mess[key].manager.token },
        ),
      );
    const menu = (key: keyof typeof mess, date: string, dishes: string[]) =>
      ok(t.post('/meals', { date, mealType: 'Lunch', dishes }, { token: mess[key].manager.token }));
    const rate = (m: Member, date: string, mealType: string, rating: number) =>
      ok(t.post('/feedback', { date, mealType, rating }, { token: m.token }));

    // Central: two expenses, six meals by three members, two ratings; the month closed.
    const [c1, c2, c3] = students.central;
    await menu('central', '2025-03-01', ['Rice', 'Dal']);
    await spend('central', 3000.1, '2025-03-02');
    await spend('central', 1234.57, '2025-03-15', 'Gas');
    await present('central', [c1, c2, c3], '2025-03-01', 'Lunch');
    await present('central', [c1, c2], '2025-03-01', 'Dinner');
    await present('central', [c1], '2025-03-02', 'Breakfast');
    await rate(c1, '2025-03-01', 'Lunch', 4);
    await rate(c2, '2025-03-01', 'Lunch', 5);
    // Boys: one expense, three meals, one rating; an opening due and an opening credit.
    const [b1, b2] = students.boys;
    await menu('boys', '2025-03-03', ['Poha']);
    await spend('boys', 999.99, '2025-03-03');
    await present('boys', [b1, b2], '2025-03-03', 'Lunch');
    await present('boys', [b1], '2025-03-04', 'Lunch');
    await rate(b1, '2025-03-03', 'Lunch', 2);
    await ok(
      t.post(
        `/accounts/${b2.id}/opening`,
        { direction: 'debit', amount: 150.25, note: 'carried over' },
        { token: mess.boys.treasurer.token },
      ),
    );
    await ok(
      t.post(
        `/accounts/${b1.id}/opening`,
        { direction: 'credit', amount: 20, note: 'advance' },
        { token: mess.boys.treasurer.token },
      ),
    );
    // Girls: spending, a menu, no meal served.
    await menu('girls', '2025-03-05', ['Idli']);
    await spend('girls', 500, '2025-03-05');

    await ok(
      t.post(`/analytics/months/${MONTH}/close`, undefined, { token: mess.central.treasurer.token }),
      200,
    );
    await ok(
      t.post(
        `/accounts/${c1.id}/payments`,
        { amount: 100.01, date: '2025-04-02', method: 'upi' },
        { token: mess.central.treasurer.token },
      ),
    );
  }, 120_000);
  afterAll(() => t?.close());

  it("answers a row per mess ordered by name, each as that mess's own analytics give it", async () => {
    // The admin's own mess's figures first: a cache that mixed messes up would hand them to the others.
    expect((await t.get(`/analytics/health?month=${MONTH}`, { token: admin })).status).toBe(200);
    const answer = await view();
    expect(answer.success).toBe(true);
    expect(answer.month).toBe(MONTH);
    expect(answer.messes.map((r) => r.mess)).toEqual([
      { _id: mess.boys.id, slug: 'boys', messName: 'Boys Hostel Mess' },
      { _id: FIRST_MESS_ID, slug: 'main', messName: 'Central Mess' },
      { _id: mess.girls.id, slug: 'girls', messName: 'Girls Hostel Mess' },
    ]);
    const [boys, central, girls] = answer.messes;
    expect(central).toMatchObject({
      members: 5, // the manager, the treasurer and three students dine
      activeMembers: 3,
      mealsServed: 6,
      totalExpenses: 4234.67,
      costPerMeal: 705.78, // 4,234.67 / 6 = 705.778…
      averageRating: 4.5,
    });
    expect(boys).toMatchObject({
      members: 4,
      activeMembers: 2,
      mealsServed: 3,
      totalExpenses: 999.99,
      costPerMeal: 333.33,
      averageRating: 2,
      due: 150.25, // the credit of 20 is not netted against it
    });
    expect(girls).toMatchObject({
      members: 3,
      activeMembers: 0,
      mealsServed: 0,
      totalExpenses: 500,
      costPerMeal: 0,
      averageRating: null,
      attendanceRate: 0,
      due: 0,
    });
    // Central's closed month charged its bill; one payment came in since.
    const centralBill = (await t.get(`/analytics/shares?month=${MONTH}`, { token: admin })).body;
    expect(centralBill.closed).toBe(true);
    expect(paise(central.due)).toBe(paise(centralBill.totalBilled) - 10001);
    expect(central.healthScore).toBeGreaterThan(0);

    await expectRowsMatchOwnAnalytics(t, admin, answer);
    expectTotalsAddUp(answer);
    expect(answer.totals).toMatchObject({ members: 12, activeMembers: 5, mealsServed: 9 });
  });

  it('shows a write, a payment and a new mess in the next answer', async () => {
    const before = await view();
    await ok(
      t.post(
        '/expenses',
        { category: 'Gas', amount: 0.01, date: '2025-03-20', description: '' },
        { token: mess.boys.manager.token },
      ),
    );
    await ok(
      t.post(
        `/accounts/${students.boys[1].id}/payments`,
        { amount: 50, date: '2025-04-01', method: 'cash' },
        { token: mess.boys.treasurer.token },
      ),
    );
    await ok(t.post('/messes', messSetup({ messName: 'Annexe Mess', slug: 'annexe' }), { token: admin }));
    const after = await view();
    expect(after.messes.map((r) => r.mess.slug)).toEqual(['annexe', 'boys', 'main', 'girls']);
    expect(after.messes[0]).toMatchObject({ members: 0, mealsServed: 0, totalExpenses: 0, due: 0 });
    expect(after.messes[1]).toMatchObject({ totalExpenses: 1000, costPerMeal: 333.33, due: 100.25 });
    expect(after.messes.slice(2)).toEqual(before.messes.slice(1));
    await expectRowsMatchOwnAnalytics(t, admin, after);
    expectTotalsAddUp(after);
  });

  it("defaults to this month in the mess's time zone", async () => {
    const today: string = (await t.get('/auth/admin/config')).body.config.today;
    const answer = await view('');
    expect(answer.month).toBe(today.slice(0, 7));
    expectTotalsAddUp(answer);
  });

  it('is for admins only; a bad month is 400 naming month', async () => {
    for (const member of [mess.central.manager, mess.boys.treasurer, students.girls[0]]) {
      expect(await t.get(`/analytics/messes?month=${MONTH}`, { token: member.token })).toMatchObject({
        status: 403,
        body: { error: 'Forbidden' },
      });
    }
    expect((await t.get(`/analytics/messes?month=${MONTH}`)).status).toBe(401);
    for (const month of ['2025-13', '2025-3', 'March']) {
      const res = await t.get(`/analytics/messes?month=${month}`, { token: admin });
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(['month']);
    }
  });
});

/**
 * Property, on the real database with the whole app: for random months of three messes (spending, meals, ratings,
 * some closed, payments), each closed mess's charges add up to its frozen bill, every member's balance in their mess
 * is the sum of their entries there, and the university's totals are the sum of its rows, each row being what the
 * mess's own analytics say.
 */
describe("The university's view (property)", () => {
  const SLUGS = ['prop-a', 'prop-b', 'prop-c'];
  const MEMBERS = 2;
  const MEALS = ['Breakfast', 'Lunch', 'Dinner'];
  let t: TestApp;
  let admin: string;
  const staff: { slug: string; manager: Member; treasurer: Member; members: Member[] }[] = [];
  let run = 0;

  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.adminToken();
    await t.post('/auth/admin/setup', messSetup({ messName: 'Main Mess' }), { token: admin });
    for (const slug of SLUGS) {
      const created = await t.post(
        '/messes',
        messSetup({
          messName: `Mess ${slug}`,
          slug,
          chargeMethod: slug === 'prop-b' ? 'spec' : 'proportional',
        }),
        { token: admin },
      );
      expect(created.status).toBe(201);
      const messId = created.body.mess._id as string;
      staff.push({
        slug,
        manager: await t.member('manager', { messId }),
        treasurer: await t.member('treasurer', { messId }),
        members: [await t.member('student', { messId }), await t.member('student', { messId })],
      });
    }
  }, 120_000);
  afterAll(() => t?.close());

  const messMonth = fc.record({
    expenses: fc.array(fc.integer({ min: 1, max: 2_000_000 }), { maxLength: 2 }),
    meals: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: MEMBERS, maxLength: MEMBERS }),
    ratings: fc.array(fc.option(fc.integer({ min: 1, max: 5 })), { minLength: MEMBERS, maxLength: MEMBERS }),
    close: fc.boolean(),
    payment: fc.option(
      fc.record({ member: fc.nat(MEMBERS - 1), paise: fc.integer({ min: 1, max: 500_000 }) }),
    ),
  });

  it('charges add up to frozen bills, balances to entries, totals to rows', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(messMonth, { minLength: SLUGS.length, maxLength: SLUGS.length }),
        async (months) => {
          run += 1;
          const ym = `2015-${String(run).padStart(2, '0')}`;
          const day = (d: number) => `${ym}-${String(d).padStart(2, '0')}`;
          const expectOk = async (promise: Promise<{ status: number; body: unknown }>, status = 201) => {
            const res = await promise;
            expect([res.status, res.body]).toEqual([status, expect.objectContaining({ success: true })]);
            return res.body as any;
          };
          for (const [i, m] of months.entries()) {
            const { manager, treasurer, members } = staff[i];
            for (const [n, amount] of m.expenses.entries()) {
              await expectOk(
                t.post(
                  '/expenses',
                  { category: 'Groceries', amount: amount / 100, date: day(n + 1), description: '' },
                  { token: manager.token },
                ),
              );
            }
            for (let slot = 0; slot < 3; slot += 1) {
              const diners = members.filter((_, k) => m.meals[k] > slot);
              if (!diners.length) continue;
              await expectOk(
                t.post(
                  '/attendance/bulk',
                  {
                    date: day(slot + 1),
                    mealType: MEALS[slot],
                    marks: diners.map((d) => ({ userId: d.id, status: 'present' })),
                  },
                  { token: manager.token },
                ),
              );
            }
            for (const [k, rating] of m.ratings.entries()) {
              if (rating === null) continue;
              await expectOk(
                t.post(
                  '/feedback',
                  { date: day(10), mealType: 'Lunch', rating },
                  { token: members[k].token },
                ),
              );
            }
            if (m.close) {
              const closed = await expectOk(
                t.post(`/analytics/months/${ym}/close`, undefined, { token: treasurer.token }),
                200,
              );
              // The month's charges in this mess add up to its frozen bill, each member's to their line.
              let charged = 0;
              for (const member of members) {
                const account = await expectOk(
                  t.get(`/accounts/${member.id}?limit=100`, { token: treasurer.token }),
                  200,
                );
                const charges = (account.entries as Entry[]).filter(
                  (e) => e.kind === 'charge' && e.month === ym,
                );
                const line = (closed.shares as { userId: { _id: string }; total: number }[]).find(
                  (s) => s.userId._id === member.id,
                );
                const memberCharged = charges.reduce((sum, e) => sum + paise(e.amount), 0);
                expect(memberCharged).toBe(paise(line?.total ?? 0));
                charged += memberCharged;
              }
              expect(charged).toBe(paise(closed.totalBilled));
            }
            if (m.payment) {
              await expectOk(
                t.post(
                  `/accounts/${members[m.payment.member].id}/payments`,
                  { amount: m.payment.paise / 100, date: day(28), method: 'bank' },
                  { token: treasurer.token },
                ),
              );
            }
          }
          // Every member's balance in their mess is the sum of their entries there.
          for (const { treasurer, members } of staff) {
            for (const member of members) {
              const account = await expectOk(
                t.get(`/accounts/${member.id}?limit=100`, { token: treasurer.token }),
                200,
              );
              const entries = account.entries as Entry[];
              expect(account.pagination.total).toBe(entries.length);
              const balance = entries.reduce(
                (sum, e) => sum + (e.direction === 'debit' ? 1 : -1) * paise(e.amount),
                0,
              );
              expect(paise(account.balance)).toBe(balance);
            }
          }
          const res = await t.get(`/analytics/messes?month=${ym}`, { token: admin });
          expect(res.status).toBe(200);
          const answer = res.body as View;
          expect(answer.messes.map((r) => r.mess.slug)).toEqual(['main', ...SLUGS]);
          for (const [i, m] of months.entries()) {
            const row = answer.messes[i + 1];
            expect(paise(row.totalExpenses)).toBe(m.expenses.reduce((a, b) => a + b, 0));
            expect(row.mealsServed).toBe(m.meals.reduce((a, b) => a + b, 0));
            const ratings = m.ratings.filter((r): r is number => r !== null);
            expect(row.averageRating).toBe(
              ratings.length
                ? Math.round((ratings.reduce((a, b) => a + b, 0) / ratings.length) * 100) / 100
                : null,
            );
          }
          await expectRowsMatchOwnAnalytics(t, admin, answer);
          expectTotalsAddUp(answer);
          // The balances the database keeps (which the dues read) are the entries' sums, in every mess.
          const drift = await asOwner(
            t.app.get(Database),
            `select coalesce(b.mess_id, e.mess_id) as mess, coalesce(b.user_id, e.user_id) as member,
                    b.balance_paise::text as kept, e.balance::text as summed
             from account_balances b
               full join (select mess_id, user_id,
                                 sum(case when direction = 'debit' then amount_paise else -amount_paise end) as balance
                          from account_entries group by mess_id, user_id) e
                 on e.mess_id = b.mess_id and e.user_id = b.user_id
             where b.balance_paise is distinct from e.balance`,
          );
          expect(drift.rows).toEqual([]);
        },
      ),
      { numRuns: 8 },
    );
  }, 300_000);
});
