import type { TestApp } from './app';
import { type StaffedMess, startStaffedMess } from './staffed-mess';

export { ISO, type Member, UNKNOWN_ID } from './staffed-mess';
export const CATEGORIES = ['Groceries', 'Vegetables', 'Dairy', 'Gas', 'Staff', 'Maintenance'];

/** What every expenses e2e file starts from (test/e2e/expenses*.e2e-spec.ts). */
export type ExpensesApp = StaffedMess;

/** The app with CATEGORIES configured (not 'Other', a default category), two managers, a treasurer and a student. */
export const startExpensesApp = (env: Record<string, string> = {}): Promise<ExpensesApp> =>
  startStaffedMess(
    {
      expenseCategories: CATEGORIES,
      mealTimes: [{ name: 'Lunch', startTime: '12:30', endTime: '14:30' }],
    },
    env,
  );

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
