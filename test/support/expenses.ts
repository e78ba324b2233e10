import { TestApp } from './app';

export type Member = Awaited<ReturnType<TestApp['member']>>;

export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
export const CATEGORIES = ['Groceries', 'Vegetables', 'Dairy', 'Gas', 'Staff', 'Maintenance'];
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** What every expenses e2e file starts from (test/e2e/expenses-*.e2e-spec.ts). */
export interface ExpensesApp {
  t: TestApp;
  admin: string;
  adminId: string;
  manager: Member;
  otherManager: Member;
  treasurer: Member;
  student: Member;
}

/** The app with CATEGORIES configured (not 'Other', a default category), two managers, a treasurer and a student. */
export async function startExpensesApp(): Promise<ExpensesApp> {
  const t = await TestApp.start();
  const admin = await t.adminToken();
  const adminId = (await t.get('/auth/verify', { token: admin })).body.user._id;
  const manager = await t.member('manager', { fullName: 'Meera Nair' });
  const otherManager = await t.member('manager', { fullName: 'Kiran Rao' });
  const treasurer = await t.member('treasurer', { fullName: 'Ravi Kumar' });
  const student = await t.member('student');
  // The stored configuration decides the categories: 'Other' is a default category but not configured here.
  const setup = await t.post(
    '/auth/admin/setup',
    {
      messName: 'Hostel 7 Mess',
      email: 'mess@college.edu',
      phone: '+91-8012345678',
      expenseCategories: CATEGORIES,
      mealTimes: [{ name: 'Lunch', startTime: '12:30', endTime: '14:30' }],
    },
    { token: admin },
  );
  expect(setup.status).toBe(200);
  return { t, admin, adminId, manager, otherManager, treasurer, student };
}

/** POST /expenses that must succeed (201); answers the expense. */
export async function recordExpense(t: TestApp, token: string, body: Record<string, unknown>) {
  const res = await t.post('/expenses', body, { token });
  expect([res.status, res.body]).toEqual([201, expect.objectContaining({ success: true })]);
  return res.body.expense;
}

/** How many expenses there are, as the admin's list counts them. */
export async function countExpenses(t: TestApp, admin: string): Promise<number> {
  return (await t.get('/expenses', { token: admin })).body.pagination.total as number;
}
