import { FIRST_MESS_ID } from '../../src/common/tenancy/mess-scope';
import { Database } from '../../src/database/database';
import { computeShares } from '../../src/modules/billing/cost-shares';
import { ADMIN, messSetup, TEST_JWT_SECRET, TestApp } from '../support/app';
import { usingServer } from '../support/database';
import { upgradeInPlace } from '../support/upgrade';
import { memberToken } from '../support/members';
import { asOwner } from '../support/owner-sql';

/**
 * Issue 20: "a database migrated to today's last migration, filled, then upgraded, answers the same bills, balances
 * and lists as before". A database of extension 2.1 (migrated up to 0016, the last migration before 0017_messes) is
 * filled through SQL shaped like that schema (one mess_config row, its singleton; no mess anywhere), as the 2.1
 * service would have left it: members, an admin, the configuration, expenses, menus, marks, feedback, leave, extras,
 * a closed month with its frozen bill and charges, a payment and an opening balance, the month caches and audit rows.
 * The current service then starts on it (migrating it to the last migration, as a deployment upgrades) and must
 * answer, over HTTP, what 2.1 answered for that data (worked out by hand below), with everything in the first mess.
 */

const BEFORE = '0016_email_normalization';

const id = (n: number) => `aaaaaaaa-0000-4000-8000-${String(n).padStart(12, '0')}`;
const U = {
  admin: id(1),
  manager: id(2),
  treasurer: id(3),
  asha: id(4),
  ravi: id(5),
  chitra: id(6),
  pending: id(7),
};
const NAMES: Record<string, string> = {
  [U.admin]: 'Mess Admin',
  [U.manager]: 'Meera Manager',
  [U.treasurer]: 'Tara Treasurer',
  [U.asha]: 'Asha Verma',
  [U.ravi]: 'Ravi Kumar',
  [U.chitra]: 'Chitra Rao',
  [U.pending]: 'Pavan Pending',
};
const E = { jan1: id(11), jan2: id(12), feb1: id(13), feb2: id(14) };
const MEAL = { lunch: id(21), dinner: id(22) };
const F = { asha: id(31), ravi: id(32) };
const L = { asha: id(41), ravi: id(42) };
const X = { asha: id(51), ravi: id(52) };
const AE = { chargeA: id(61), chargeB: id(62), chargeC: id(63), payment: id(64), opening: id(65) };
const AUDIT = { expense: id(71), month: id(72) };

/**
 * January 2025, closed: expenses ₹6,000 + ₹3,001.01 = 900101 paise; present meals Asha 3, Ravi 2, Chitra 1 (and one
 * absent mark of Chitra's). Proportional (the mess's chargeMethod): exact shares 450050.5, 300033.67, 150016.83;
 * the two paise left go to the largest remainders (Chitra, then Ravi): 450050, 300034, 150017. Spec: the total over
 * 3 active members, 300033.67, rounded to 300034 to allocate; exact shares 900101 × meals / 18 = 150016.83,
 * 100011.22, 50005.61; the two paise left go to Asha and Chitra: 150017, 100011, 50006; 600067 unallocated. Asha's
 * extras: 2 eggs at ₹12.50. Her charge 452550, Ravi's 300034, Chitra's 150017.
 */
const FROZEN = {
  computedAt: '2025-02-01T10:00:00.000Z',
  names: { [U.asha]: NAMES[U.asha], [U.ravi]: NAMES[U.ravi], [U.chitra]: NAMES[U.chitra] },
  bills: {
    spec: {
      method: 'spec',
      totalPaise: 900101,
      activeMembers: 3,
      totalMeals: 6,
      allocatedPaise: 300034,
      unallocatedPaise: 600067,
      shares: [
        { userId: U.asha, meals: 3, sharePaise: 150017 },
        { userId: U.ravi, meals: 2, sharePaise: 100011 },
        { userId: U.chitra, meals: 1, sharePaise: 50006 },
      ],
    },
    proportional: {
      method: 'proportional',
      totalPaise: 900101,
      activeMembers: 3,
      totalMeals: 6,
      allocatedPaise: 900101,
      unallocatedPaise: 0,
      shares: [
        { userId: U.asha, meals: 3, sharePaise: 450050 },
        { userId: U.ravi, meals: 2, sharePaise: 300034 },
        { userId: U.chitra, meals: 1, sharePaise: 150017 },
      ],
    },
  },
  chargeMethod: 'proportional',
  extras: { [U.asha]: 2500 },
};

const MEAL_TIMES = [
  { name: 'Breakfast', startTime: '07:30', endTime: '09:30' },
  { name: 'Lunch', startTime: '12:30', endTime: '14:30' },
  { name: 'Dinner', startTime: '19:30', endTime: '21:30' },
];

/** 2.1's schema: no messes, one configuration row (its `singleton`), every record the one mess's. */
const fill = `
  insert into users (id, email, password_hash, full_name, college_id, room, phone, role, status, dines, created_at) values
    ('${U.admin}', '${ADMIN.email}', null, 'Mess Admin', '', '', null, 'admin', 'approved', false, '2024-12-01T00:00:00Z'),
    ('${U.manager}', 'meera@college.edu', null, 'Meera Manager', 'CS01', 'A-1', '+919876500001', 'manager', 'approved', true, '2024-12-01T00:01:00Z'),
    ('${U.treasurer}', 'tara@college.edu', null, 'Tara Treasurer', 'CS02', 'A-2', '+919876500002', 'treasurer', 'approved', true, '2024-12-01T00:02:00Z'),
    ('${U.asha}', 'asha@college.edu', null, 'Asha Verma', 'CS03', 'B-1', '+919876500003', 'student', 'approved', true, '2024-12-01T00:03:00Z'),
    ('${U.ravi}', 'ravi@college.edu', null, 'Ravi Kumar', 'CS04', 'B-2', '+919876500004', 'student', 'approved', true, '2024-12-01T00:04:00Z'),
    ('${U.chitra}', 'chitra@college.edu', null, 'Chitra Rao', 'CS05', 'B-3', '+919876500005', 'student', 'approved', true, '2024-12-01T00:05:00Z'),
    ('${U.pending}', 'pavan@college.edu', null, 'Pavan Pending', 'CS06', 'B-4', '+919876500006', 'student', 'pending', true, '2024-12-01T00:06:00Z');

  insert into mess_config (singleton, mess_name, description, email, phone, expense_categories, meal_times,
                           monthly_budget, charge_method, extra_items, created_by) values
    (true, 'Hostel 7 Mess', 'Vegetarian mess', 'mess@college.edu', '+918012345678', '["Groceries","Gas"]',
     '${JSON.stringify(MEAL_TIMES)}', 50000.00, 'proportional', '[{"name":"Egg","pricePaise":1250}]', '${U.admin}');

  insert into expenses (id, category, amount_paise, description, date, recorded_by, created_at) values
    ('${E.jan1}', 'Groceries', 600000, 'Rice and dal', '2025-01-05', '${U.manager}', '2025-01-05T10:00:00Z'),
    ('${E.jan2}', 'Gas', 300101, 'Two cylinders', '2025-01-20', '${U.manager}', '2025-01-20T10:00:00Z'),
    ('${E.feb1}', 'Groceries', 123456, 'Vegetables', '2025-02-03', '${U.manager}', '2025-02-03T10:00:00Z'),
    ('${E.feb2}', 'Gas', 50000, 'One cylinder', '2025-02-10', '${U.treasurer}', '2025-02-10T10:00:00Z');

  insert into meals (id, date, meal_type, dishes, notes, created_by) values
    ('${MEAL.lunch}', '2025-02-03', 'Lunch', '{Rice,Dal}', '', '${U.manager}'),
    ('${MEAL.dinner}', '2025-02-03', 'Dinner', '{Roti,Paneer}', 'Sweet on Mondays', '${U.manager}');

  insert into attendance (user_id, date, meal_type, status, marked_by, source) values
    ('${U.asha}', '2025-01-01', 'Lunch', 'present', '${U.asha}', 'member'),
    ('${U.asha}', '2025-01-02', 'Lunch', 'present', '${U.asha}', 'member'),
    ('${U.asha}', '2025-01-03', 'Dinner', 'present', '${U.manager}', 'mess'),
    ('${U.ravi}', '2025-01-01', 'Lunch', 'present', '${U.ravi}', 'member'),
    ('${U.ravi}', '2025-01-02', 'Lunch', 'present', '${U.ravi}', 'member'),
    ('${U.chitra}', '2025-01-01', 'Lunch', 'present', '${U.chitra}', 'member'),
    ('${U.chitra}', '2025-01-02', 'Lunch', 'absent', '${U.chitra}', 'member'),
    ('${U.asha}', '2025-02-03', 'Lunch', 'present', '${U.asha}', 'member'),
    ('${U.asha}', '2025-02-03', 'Dinner', 'present', '${U.asha}', 'member'),
    ('${U.ravi}', '2025-02-03', 'Lunch', 'present', '${U.ravi}', 'member'),
    ('${U.chitra}', '2025-02-03', 'Lunch', 'absent', '${U.chitra}', 'member');

  insert into feedback (id, user_id, date, meal_type, rating, comment) values
    ('${F.asha}', '${U.asha}', '2025-02-03', 'Lunch', 4, 'Good dal'),
    ('${F.ravi}', '${U.ravi}', '2025-02-03', 'Lunch', 2, 'Cold rice');

  insert into leaves (id, user_id, start_date, end_date, start_meal_type, end_meal_type, starts_at, ends_at, days,
                      reason, status, requested_by, decided_by, decided_at) values
    ('${L.asha}', '${U.asha}', '2025-02-20', '2025-02-21', 'Breakfast', 'Dinner', '2025-02-20T07:30:00+05:30',
     '2025-02-21T21:30:00+05:30', 2, 'Going home', 'approved', '${U.asha}', '${U.manager}', '2025-02-15T10:00:00Z'),
    ('${L.ravi}', '${U.ravi}', '2025-03-10', '2025-03-10', 'Lunch', 'Dinner', '2025-03-10T12:30:00+05:30',
     '2025-03-10T21:30:00+05:30', 1, 'Exam', 'pending', '${U.ravi}', null, null);

  insert into extras (id, user_id, date, meal_type, item, unit_price_paise, quantity, amount_paise, recorded_by) values
    ('${X.asha}', '${U.asha}', '2025-01-03', 'Dinner', 'Egg', 1250, 2, 2500, '${U.manager}'),
    ('${X.ravi}', '${U.ravi}', '2025-02-03', 'Lunch', 'Egg', 1250, 1, 1250, '${U.manager}');

  -- What the recalculator had stored for both months (the close stores January's as it freezes the bill).
  insert into month_totals (month, total_paise, computed_at) values
    ('2025-01', 900101, '2025-02-01T10:00:00Z'), ('2025-02', 173456, '2025-02-10T10:00:01Z');
  insert into month_member_meals (month, user_id, meals) values
    ('2025-01', '${U.asha}', 3), ('2025-01', '${U.ravi}', 2), ('2025-01', '${U.chitra}', 1),
    ('2025-02', '${U.asha}', 2), ('2025-02', '${U.ravi}', 1);
  insert into month_meal_counts (month, meal_type, present, absent, served_slots) values
    ('2025-01', 'Dinner', 1, 0, 1), ('2025-01', 'Lunch', 5, 1, 2),
    ('2025-02', 'Dinner', 1, 0, 1), ('2025-02', 'Lunch', 2, 1, 1);

  -- January closed by the treasurer: the frozen bill, the log, the charges (last, as the close posts them).
  insert into month_closures (month, closed_at, closed_by, bill) values
    ('2025-01', '2025-02-01T10:00:00Z', '${U.treasurer}', '${JSON.stringify(FROZEN)}');
  insert into month_close_log (month, action, actor_id, at) values
    ('2025-01', 'close', '${U.treasurer}', '2025-02-01T10:00:00Z');
  insert into account_entries (id, user_id, kind, direction, amount_paise, month, date, method, reference, note,
                               recorded_by, created_at) values
    ('${AE.opening}', '${U.ravi}', 'opening', 'debit', 10000, null, '2025-01-01', null, null, 'Carried over from 2024',
     '${U.treasurer}', '2025-01-01T09:00:00Z'),
    ('${AE.chargeA}', '${U.asha}', 'charge', 'debit', 452550, '2025-01', '2025-01-31', null, null, null,
     '${U.treasurer}', '2025-02-01T10:00:00Z'),
    ('${AE.chargeB}', '${U.ravi}', 'charge', 'debit', 300034, '2025-01', '2025-01-31', null, null, null,
     '${U.treasurer}', '2025-02-01T10:00:00Z'),
    ('${AE.chargeC}', '${U.chitra}', 'charge', 'debit', 150017, '2025-01', '2025-01-31', null, null, null,
     '${U.treasurer}', '2025-02-01T10:00:00Z'),
    ('${AE.payment}', '${U.asha}', 'payment', 'credit', 200000, null, '2025-02-05', 'upi', 'UPI-1001', null,
     '${U.treasurer}', '2025-02-05T10:00:00Z');

  insert into audit_events (id, at, actor_id, action, entity, entity_id, before, after) values
    ('${AUDIT.expense}', '2025-01-05T10:00:00Z', '${U.manager}', 'created', 'expense', '${E.jan1}', null,
     '{"category":"Groceries","amountPaise":600000,"date":"2025-01-05"}'),
    ('${AUDIT.month}', '2025-02-01T10:00:00Z', '${U.treasurer}', 'closed', 'month', '2025-01', null,
     '{"chargeMethod":"proportional","totalPaise":900101,"allocatedPaise":900101,"extrasPaise":2500,"charges":3,"chargedPaise":902601}');
`;

/** Rows of a mess record table in a mess other than the first, for every table that has `mess_id` after 0017. */
const ELSEWHERE = `
  select coalesce(sum(n), 0)::int as n from (
    ${[
      'users',
      'mess_config',
      'expenses',
      'meals',
      'attendance',
      'feedback',
      'leaves',
      'extras',
      'account_entries',
      'month_closures',
      'month_close_log',
      'month_totals',
      'month_member_meals',
      'audit_events',
    ]
      .map((table) => `select count(*) as n from ${table} where mess_id <> '${FIRST_MESS_ID}'`)
      .join(' union all ')}
  ) counts`;

const byId = <T extends { _id: string }>(rows: T[]) => [...rows].sort((a, b) => a._id.localeCompare(b._id));
const pick = <T extends object>(row: T, keys: (keyof T)[]) =>
  Object.fromEntries(keys.map((key) => [key, row[key]])) as Partial<T>;

/** What 2.1 answered for this data, asked over HTTP of the upgraded service. */
async function expectSameAnswers(t: TestApp): Promise<void> {
  const token = (userId: string) => memberToken(TEST_JWT_SECRET, { id: userId, tokenVersion: 0 });
  const admin = token(U.admin);
  const manager = token(U.manager);
  const treasurer = token(U.treasurer);
  const get = async (url: string, as: string) => {
    const res = await t.get(url, { token: as });
    expect([url, res.status]).toEqual([url, 200]);
    return res.body;
  };

  // Every row of every mess record table went to the first mess (read as the tables' owner, past row security).
  expect((await asOwner(t.app.get(Database), ELSEWHERE)).rows).toEqual([{ n: 0 }]);

  // The first mess is the one there was: set up, with 2.1's configuration, and everybody in it.
  const messes = (await get('/messes', admin)).messes;
  expect(messes).toEqual([
    expect.objectContaining({
      _id: FIRST_MESS_ID,
      slug: 'main',
      messName: 'Hostel 7 Mess',
      configured: true,
      capacity: null,
      members: 6,
    }),
  ]);
  expect((await get('/auth/admin/config', admin)).config).toMatchObject({
    messName: 'Hostel 7 Mess',
    description: 'Vegetarian mess',
    email: 'mess@college.edu',
    phone: '+918012345678',
    expenseCategories: ['Groceries', 'Gas'],
    mealTimes: MEAL_TIMES,
    monthlyBudget: 50000,
    chargeMethod: 'proportional',
    extraItems: [{ name: 'Egg', price: 12.5 }],
    configured: true,
    slug: 'main',
    capacity: null,
  });
  const firstMess = { _id: FIRST_MESS_ID, slug: 'main', messName: 'Hostel 7 Mess' };
  const users = (await get('/users?limit=100', admin)).users as {
    _id: string;
    status: string;
    mess: unknown;
  }[];
  expect(byId(users).map((u) => pick(u, ['_id', 'status', 'mess']))).toEqual(
    Object.values(U)
      .sort()
      .map((userId) => ({
        _id: userId,
        status: userId === U.pending ? 'pending' : 'approved',
        mess: firstMess,
      })),
  );
  expect((await get('/auth/verify', token(U.asha))).user).toMatchObject({ _id: U.asha, mess: firstMess });

  // The lists.
  const expenses = (await get('/expenses?limit=100', manager)).expenses;
  expect(
    byId(expenses).map((e: any) => pick(e, ['_id', 'category', 'amount', 'date', 'description'])),
  ).toEqual([
    { _id: E.jan1, category: 'Groceries', amount: 6000, date: '2025-01-05', description: 'Rice and dal' },
    { _id: E.jan2, category: 'Gas', amount: 3001.01, date: '2025-01-20', description: 'Two cylinders' },
    { _id: E.feb1, category: 'Groceries', amount: 1234.56, date: '2025-02-03', description: 'Vegetables' },
    { _id: E.feb2, category: 'Gas', amount: 500, date: '2025-02-10', description: 'One cylinder' },
  ]);
  const meals = (await get('/meals?date=2025-02-03', manager)).meals;
  expect(byId(meals).map((m: any) => pick(m, ['_id', 'mealType', 'dishes', 'notes']))).toEqual([
    { _id: MEAL.lunch, mealType: 'Lunch', dishes: ['Rice', 'Dal'], notes: '' },
    { _id: MEAL.dinner, mealType: 'Dinner', dishes: ['Roti', 'Paneer'], notes: 'Sweet on Mondays' },
  ]);
  const marks = async (month: string) =>
    ((await get(`/attendance?month=${month}&limit=100`, manager)).attendance as any[])
      .map((a) => `${a.date} ${a.mealType} ${NAMES[a.userId]} ${a.status}`)
      .sort();
  expect(await marks('2025-01')).toEqual([
    '2025-01-01 Lunch Asha Verma present',
    '2025-01-01 Lunch Chitra Rao present',
    '2025-01-01 Lunch Ravi Kumar present',
    '2025-01-02 Lunch Asha Verma present',
    '2025-01-02 Lunch Chitra Rao absent',
    '2025-01-02 Lunch Ravi Kumar present',
    '2025-01-03 Dinner Asha Verma present',
  ]);
  expect(await marks('2025-02')).toEqual([
    '2025-02-03 Dinner Asha Verma present',
    '2025-02-03 Lunch Asha Verma present',
    '2025-02-03 Lunch Chitra Rao absent',
    '2025-02-03 Lunch Ravi Kumar present',
  ]);
  const feedback = (await get('/feedback?limit=100', manager)).feedback;
  expect(byId(feedback).map((f: any) => [f._id, f.userId._id, f.rating, f.comment])).toEqual([
    [F.asha, U.asha, 4, 'Good dal'],
    [F.ravi, U.ravi, 2, 'Cold rice'],
  ]);
  const leaves = (await get('/leaves?limit=100', manager)).leaves;
  expect(byId(leaves).map((l: any) => pick(l, ['_id', 'startDate', 'endDate', 'days', 'status']))).toEqual([
    { _id: L.asha, startDate: '2025-02-20', endDate: '2025-02-21', days: 2, status: 'approved' },
    { _id: L.ravi, startDate: '2025-03-10', endDate: '2025-03-10', days: 1, status: 'pending' },
  ]);
  const extras = await get('/extras?limit=100', manager);
  expect(byId(extras.extras).map((x: any) => pick(x, ['_id', 'item', 'quantity', 'amount', 'date']))).toEqual(
    [
      { _id: X.asha, item: 'Egg', quantity: 2, amount: 25, date: '2025-01-03' },
      { _id: X.ravi, item: 'Egg', quantity: 1, amount: 12.5, date: '2025-02-03' },
    ],
  );
  expect(extras.totalAmount).toBe(37.5);
  const audit = (await get('/audit?limit=100', treasurer)).events;
  expect(byId(audit).map((a: any) => [a._id, a.action, a.entity, a.entityId])).toEqual([
    [AUDIT.expense, 'created', 'expense', E.jan1],
    [AUDIT.month, 'closed', 'month', '2025-01'],
  ]);

  // The bills: January's frozen one as it was closed, February's computed from its inputs.
  const bill = async (month: string, method: string) => {
    const body = await get(`/analytics/shares?month=${month}&method=${method}`, treasurer);
    return {
      ...body,
      shares: [...body.shares].sort((a: any, b: any) => a.userId._id.localeCompare(b.userId._id)),
    };
  };
  const line = (userId: string, meals: number, share: number, extras = 0) => ({
    userId: { _id: userId, fullName: NAMES[userId] },
    fullName: NAMES[userId],
    meals,
    share,
    extras,
    total: Math.round((share + extras) * 100) / 100,
  });
  expect(await bill('2025-01', 'proportional')).toMatchObject({
    month: '2025-01',
    method: 'proportional',
    closed: true,
    computedAt: FROZEN.computedAt,
    totalExpenses: 9001.01,
    activeMembers: 3,
    totalMeals: 6,
    allocated: 9001.01,
    unallocated: 0,
    totalExtras: 25,
    totalBilled: 9026.01,
    shares: [line(U.asha, 3, 4500.5, 25), line(U.ravi, 2, 3000.34), line(U.chitra, 1, 1500.17)],
  });
  expect(await bill('2025-01', 'spec')).toMatchObject({
    closed: true,
    allocated: 3000.34,
    unallocated: 6000.67,
    shares: [line(U.asha, 3, 1500.17, 25), line(U.ravi, 2, 1000.11), line(U.chitra, 1, 500.06)],
  });
  // February, open: ₹1,234.56 + ₹500 = 173456 paise over Asha's 2 meals and Ravi's 1: exact 115637.33 and
  // 57818.67; the paisa left goes to Ravi's larger remainder. Ravi's egg: ₹12.50.
  expect(await bill('2025-02', 'proportional')).toMatchObject({
    closed: false,
    totalExpenses: 1734.56,
    activeMembers: 2,
    totalMeals: 3,
    allocated: 1734.56,
    unallocated: 0,
    totalExtras: 12.5,
    shares: [line(U.asha, 2, 1156.37), line(U.ravi, 1, 578.19, 12.5)],
  });
  const mine = await get('/analytics/shares/me?month=2025-01', token(U.asha));
  expect(pick(mine, ['closed', 'meals', 'share', 'extras', 'total'])).toEqual({
    closed: true,
    meals: 3,
    share: 4500.5,
    extras: 25,
    total: 4525.5,
  });
  const months = (await get('/analytics/months?limit=12', treasurer)).months;
  expect(months.map((m: any) => [m.month, m.closed, m.closedBy?.fullName ?? null])).toEqual([
    ['2025-02', false, null],
    ['2025-01', true, 'Tara Treasurer'],
  ]);

  // The balances: Asha charged 4525.50 and paid 2000; Ravi's opening 100 and charge 3000.34; Chitra 1500.17.
  const accounts = await get('/accounts?limit=100', treasurer);
  expect(Object.fromEntries(accounts.accounts.map((a: any) => [NAMES[a.userId._id], a.balance]))).toEqual({
    'Mess Admin': 0,
    'Meera Manager': 0,
    'Tara Treasurer': 0,
    'Asha Verma': 2525.5,
    'Ravi Kumar': 3100.34,
    'Chitra Rao': 1500.17,
  });
  const asha = await get(`/accounts/${U.asha}?limit=100`, treasurer);
  expect([asha.balance, asha.entries.map((e: any) => [e._id, e.kind, e.direction, e.amount])]).toEqual([
    2525.5,
    [
      [AE.payment, 'payment', 'credit', 2000],
      [AE.chargeA, 'charge', 'debit', 4525.5],
    ],
  ]);
  const statement = await get(`/accounts/${U.ravi}/statement?from=2025-01&to=2025-02`, treasurer);
  expect(pick(statement, ['opening', 'closing', 'totalDebit', 'totalCredit'])).toEqual({
    opening: 0,
    closing: 3100.34,
    totalDebit: 3100.34,
    totalCredit: 0,
  });

  // A mess made after the upgrade starts empty: nothing of the first is in it.
  const second = await t.post('/messes', messSetup({ messName: 'Girls Mess', slug: 'girls' }), {
    token: admin,
  });
  expect(second.status).toBe(201);
  for (const url of ['/expenses', '/attendance', '/feedback', '/leaves', '/extras']) {
    const body = await get(`${url}?mess=girls`, admin);
    expect([url, body.pagination.total]).toEqual([url, 0]);
  }
  // Its audit trail holds its own configuration only.
  const girlsAudit = (await get('/audit?mess=girls', admin)).events;
  expect(girlsAudit.map((a: any) => [a.entity, a.action])).toEqual([['config', expect.any(String)]]);
  expect((await get('/accounts?mess=girls', admin)).accounts).toEqual([]);
  expect((await get('/expenses', manager)).pagination.total).toBe(4);
}

describe('A database of 2.1, filled, then upgraded in place to many messes', () => {
  it('holds a frozen bill that the code computes from its inputs', () => {
    const members = [
      { userId: U.asha, meals: 3 },
      { userId: U.ravi, meals: 2 },
      { userId: U.chitra, meals: 1 },
    ];
    expect(computeShares(900101, members, 'spec')).toEqual(FROZEN.bills.spec);
    expect(computeShares(900101, members, 'proportional')).toEqual(FROZEN.bills.proportional);
  });

  it('embedded: answers the same bills, balances and lists, everything in the first mess', async () => {
    await upgradeInPlace({ lastTag: BEFORE, fill, use: expectSameAnswers });
  }, 240_000);

  (usingServer() ? it : it.skip)(
    'server: the same upgrade',
    async () => {
      await upgradeInPlace({
        lastTag: BEFORE,
        fill,
        use: expectSameAnswers,
        serverUrl: process.env.TEST_DATABASE_URL!,
      });
    },
    240_000,
  );
});
