import { TestApp } from './app';

export type Member = Awaited<ReturnType<TestApp['member']>>;

export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** What every meals e2e file starts from (test/e2e/meals-*.e2e-spec.ts). */
export interface MealsApp {
  t: TestApp;
  admin: string;
  adminId: string;
  manager: Member;
  otherManager: Member;
  treasurer: Member;
  student: Member;
}

/** The app in India's time zone with four meal times (Supper among them), two managers, a treasurer, a student. */
export async function startMealsApp(): Promise<MealsApp> {
  const t = await TestApp.start({ MESS_TIMEZONE: 'Asia/Kolkata' });
  const admin = await t.adminToken();
  const adminId = (await t.get('/auth/verify', { token: admin })).body.user._id;
  const manager = await t.member('manager', { fullName: 'Meera Nair' });
  const otherManager = await t.member('manager', { fullName: 'Kiran Rao' });
  const treasurer = await t.member('treasurer');
  const student = await t.member('student');
  // Four meal times; Supper is no default meal time, so only the stored configuration makes it valid.
  const setup = await t.post(
    '/auth/admin/setup',
    {
      messName: 'Hostel 7 Mess',
      email: 'mess@college.edu',
      phone: '+91-8012345678',
      expenseCategories: ['Groceries'],
      mealTimes: [
        { name: 'Breakfast', startTime: '07:30', endTime: '09:30' },
        { name: 'Lunch', startTime: '12:30', endTime: '14:30' },
        { name: 'Snacks', startTime: '16:30', endTime: '17:30' },
        { name: 'Supper', startTime: '19:30', endTime: '21:30' },
      ],
    },
    { token: admin },
  );
  expect(setup.status).toBe(200);
  return { t, admin, adminId, manager, otherManager, treasurer, student };
}

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
