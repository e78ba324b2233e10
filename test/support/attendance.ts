import { and, count, eq } from 'drizzle-orm';
import { FIRST_MESS_ID, inMess } from '../../src/common/tenancy/mess-scope';
import { Database } from '../../src/database/database';
import { attendance } from '../../src/modules/attendance/attendance.schema';
import { messSetup, TestApp } from './app';

import { type Member } from './staffed-mess';

export { type Member, UNKNOWN_ID } from './staffed-mess';

/** What every attendance e2e file starts from (test/e2e/attendance-*.e2e-spec.ts). */
export interface AttendanceApp {
  t: TestApp;
  admin: string;
  manager: Member;
  treasurer: Member;
  asha: Member;
  ravi: Member;
  /** A member who registered and was never approved. */
  pendingId: string;
}

/**
 * The app with Breakfast, Snacks and Dinner (Lunch is no meal type here: the stored configuration decides), a
 * manager, a treasurer, two students and a member still pending approval.
 */
export async function startAttendanceApp(): Promise<AttendanceApp> {
  const t = await TestApp.start();
  const admin = await t.adminToken();
  // The stored configuration decides the meal types: Snacks is one, Lunch is not.
  const setup = await t.post(
    '/auth/admin/setup',
    messSetup({
      expenseCategories: ['Groceries'],
      mealTimes: [
        { name: 'Breakfast', startTime: '07:30', endTime: '09:30' },
        { name: 'Snacks', startTime: '16:30', endTime: '17:30' },
        { name: 'Dinner', startTime: '19:30', endTime: '21:30' },
      ],
    }),
    { token: admin },
  );
  expect(setup.status).toBe(200);
  const manager = await t.member('manager', { fullName: 'Meera Manager' });
  const treasurer = await t.member('treasurer', { fullName: 'Tara Treasurer' });
  const asha = await t.member('student', { fullName: 'Asha Verma' });
  const ravi = await t.member('student', { fullName: 'Ravi Kumar' });
  const pending = await t.post('/auth/register', {
    email: 'pending-attendance@test.local',
    password: 'pending-password',
    fullName: 'Pending Person',
    collegeId: 'P1',
    room: 'P-1',
    phone: '9000000101',
  });
  return { t, admin, manager, treasurer, asha, ravi, pendingId: pending.body.userId };
}

/** Counts the stored marks of one member (on one date), straight from the database. */
export async function storedMarksOf(t: TestApp, userId: string, date?: string): Promise<number> {
  // The members are in the first mess: the table read directly shows that mess's marks.
  const [{ n }] = await inMess(FIRST_MESS_ID, () =>
    t.app
      .get(Database)
      .db.select({ n: count() })
      .from(attendance)
      .where(and(eq(attendance.userId, userId), date ? eq(attendance.date, date) : undefined)),
  );
  return n;
}
