import { FIRST_MESS_ID } from '../../src/common/tenancy/mess-scope';
import { ADMIN, messSetup, type TestApp } from '../support/app';
import { usingServer } from '../support/database';
import { upgradeInPlace, type OwnerQuery } from '../support/upgrade';

/**
 * Issue 44: a database whose erasures left the erased on the daily rate's rolls (migrated up to 0037) upgrades in
 * place: each erased member's open stretch ends at their erasure (its audit row's instant), a peer's stays open,
 * and the bills after it have no line for them.
 */
const BEFORE = '0037_attendance_time_ordered_ids';
const id = (n: number) => `cccccccc-0000-4000-8000-${String(n).padStart(12, '0')}`;
const U = { admin: id(1), erased: id(2), peer: id(3) };
const MAIN = FIRST_MESS_ID;

const fill = `
  insert into users (id, mess_id, email, password_hash, full_name, role, status, dines, created_at) values
    ('${U.admin}', '${MAIN}', '${ADMIN.email}', null, 'Mess Admin', 'admin', 'approved', false, '2025-12-01T00:00:00Z'),
    ('${U.erased}', '${MAIN}', '${U.erased}@erased.invalid', null, 'Former member cccccc', 'student', 'erased', true,
     '2025-12-01T00:00:00Z'),
    ('${U.peer}', '${MAIN}', 'peer@college.edu', null, 'Peer Rollsby', 'student', 'approved', true,
     '2025-12-01T00:00:00Z');
  insert into membership_periods (mess_id, user_id, started_at, dines) values
    ('${MAIN}', '${U.admin}', '2025-12-01T00:00:00Z', false),
    ('${MAIN}', '${U.erased}', '2025-12-01T00:00:00Z', true),
    ('${MAIN}', '${U.peer}', '2025-12-01T00:00:00Z', true);
  insert into audit_events (mess_id, at, actor_id, action, entity, entity_id, before, after) values
    ('${MAIN}', '2026-01-15T04:30:00Z', '${U.admin}', 'erased', 'user', '${U.erased}',
     '{"status":"approved"}', '{"status":"erased"}');
`;

async function bills(t: TestApp): Promise<void> {
  const admin = await t.adminToken();
  const setup = await t.post('/auth/admin/setup', messSetup({ chargeMethod: 'daily', dailyRate: 100 }), {
    token: admin,
  });
  expect(setup.status).toBe(200);
  const days = async (month: string) =>
    Object.fromEntries(
      (await t.get(`/analytics/shares?month=${month}`, { token: admin })).body.shares.map(
        (s: { userId: { _id: string }; days: number }) => [s.userId._id, s.days],
      ),
    );
  // Erased at 10:00 on 15 January (India): on the rolls 1–14 January, then never.
  expect(await days('2026-01')).toEqual({ [U.erased]: 14, [U.peer]: 31 });
  expect(await days('2026-02')).toEqual({ [U.peer]: 28 });
}

async function periods(query: OwnerQuery): Promise<void> {
  const rows = await query<{ user_id: string; ended_at: Date | null }>(
    'select user_id, ended_at from membership_periods order by user_id',
  );
  expect(rows.map((r) => [r.user_id, r.ended_at && new Date(r.ended_at).toISOString()])).toEqual([
    [U.admin, null],
    [U.erased, '2026-01-15T04:30:00.000Z'],
    [U.peer, null],
  ]);
}

describe('A database with erased members on the rolls upgraded in place', () => {
  it('embedded', async () => {
    await upgradeInPlace({ lastTag: BEFORE, fill, use: bills, inspect: periods });
  }, 240_000);

  (usingServer() ? it : it.skip)(
    'server',
    async () => {
      await upgradeInPlace({
        lastTag: BEFORE,
        fill,
        use: bills,
        inspect: periods,
        serverUrl: process.env.TEST_DATABASE_URL!,
      });
    },
    240_000,
  );
});
