import { TestApp } from './app';
import { messSetup } from './mess-setup';

export type Member = Awaited<ReturnType<TestApp['member']>>;

export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A set-up mess with its staff: two managers, a treasurer and a student (the meals and expenses files). */
export interface StaffedMess {
  t: TestApp;
  admin: string;
  adminId: string;
  manager: Member;
  otherManager: Member;
  treasurer: Member;
  student: Member;
}

/** Starts the app (with `env`), sets the mess up with `messSetup(setup)` and adds its staff. */
export async function startStaffedMess(
  setup: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<StaffedMess> {
  const t = await TestApp.start(env);
  const admin = await t.adminToken();
  const adminId = (await t.get('/auth/verify', { token: admin })).body.user._id;
  const manager = await t.member('manager', { fullName: 'Meera Nair' });
  const otherManager = await t.member('manager', { fullName: 'Kiran Rao' });
  const treasurer = await t.member('treasurer', { fullName: 'Ravi Kumar' });
  const student = await t.member('student');
  expect((await t.post('/auth/admin/setup', messSetup(setup), { token: admin })).status).toBe(200);
  return { t, admin, adminId, manager, otherManager, treasurer, student };
}
