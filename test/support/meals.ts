import type { TestApp } from './app';
import { type StaffedMess, startStaffedMess } from './staffed-mess';

export { ISO, type Member, UNKNOWN_ID } from './staffed-mess';

/** What every meals e2e file starts from (test/e2e/meals*.e2e-spec.ts). */
export type MealsApp = StaffedMess;

/** The app in India's time zone with four meal times (Supper among them), two managers, a treasurer, a student. */
export const startMealsApp = (): Promise<MealsApp> =>
  // Supper is no default meal time, so only the stored configuration makes it valid.
  startStaffedMess(
    {
      expenseCategories: ['Groceries'],
      mealTimes: [
        { name: 'Breakfast', startTime: '07:30', endTime: '09:30' },
        { name: 'Lunch', startTime: '12:30', endTime: '14:30' },
        { name: 'Snacks', startTime: '16:30', endTime: '17:30' },
        { name: 'Supper', startTime: '19:30', endTime: '21:30' },
      ],
    },
    { MESS_TIMEZONE: 'Asia/Kolkata' },
  );

/** POST /meals that must succeed (201); answers the menu. */
export async function publishMeal(t: TestApp, token: string, body: Record<string, unknown>) {
  const res = await t.post('/meals', body, { token });
  expect([res.status, res.body]).toEqual([201, expect.objectContaining({ success: true })]);
  return res.body.meal;
}

/** The menus of one date, as a member lists them. */
export async function mealsOn(t: TestApp, token: string, date: string) {
  return (await t.get(`/meals?date=${date}`, { token })).body.meals;
}

export const ids = (list: { _id: string }[]) => list.map((m) => m._id);
