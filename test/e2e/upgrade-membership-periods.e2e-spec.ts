import { FIRST_MESS_ID } from '../../src/common/tenancy/mess-scope';
import { ADMIN, messSetup, type TestApp } from '../support/app';
import { usingServer } from '../support/database';
import { upgradeInPlace, type OwnerQuery } from '../support/upgrade';

/**
 * Issue 33: a database of 2.2 (migrated up to 0027, the last migration before the membership periods) upgrades in
 * place: every approved member is on the rolls of their mess from their approval or their move into it, whichever
 * came last (the audit trail), else from their registration; a pending member is on no rolls, a member who does not
 * dine has a stretch that bills nothing. The daily rate then bills those days.
 */
const BEFORE = '0027_rejected_claim_frees_utr';
const id = (n: number) => `bbbbbbbb-0000-4000-8000-${String(n).padStart(12, '0')}`;
const ANNEXE = id(100);
const U = { admin: id(1), asha: id(2), ravi: id(3), gita: id(4), pavan: id(5), dev: id(6) };
const MAIN = FIRST_MESS_ID;

const fill = `
  insert into messes (id, slug) values ('${ANNEXE}', 'annexe');
  insert into users (id, mess_id, email, password_hash, full_name, role, status, dines, created_at) values
    ('${U.admin}', '${MAIN}', '${ADMIN.email}', null, 'Mess Admin', 'admin', 'approved', false, '2025-12-01T00:00:00Z'),
    ('${U.asha}', '${MAIN}', 'asha@college.edu', null, 'Asha Verma', 'student', 'approved', true, '2026-01-05T04:00:00Z'),
    ('${U.ravi}', '${MAIN}', 'ravi@college.edu', null, 'Ravi Kumar', 'student', 'approved', true, '2025-12-20T04:00:00Z'),
    ('${U.gita}', '${ANNEXE}', 'gita@college.edu', null, 'Gita Nair', 'student', 'approved', true, '2025-12-28T04:00:00Z'),
    ('${U.pavan}', '${MAIN}', 'pavan@college.edu', null, 'Pavan Pending', 'student', 'pending', true, '2026-01-03T04:00:00Z'),
    ('${U.dev}', '${MAIN}', 'dev@college.edu', null, 'Dev Staff', 'manager', 'approved', false, '2025-12-01T04:00:00Z');
  insert into audit_events (mess_id, at, actor_id, action, entity, entity_id, before, after) values
    ('${MAIN}', '2026-01-10T06:30:00Z', '${U.admin}', 'approved', 'user', '${U.asha}',
     '{"status":"pending","role":"student"}', '{"status":"approved","role":"student"}'),
    ('${MAIN}', '2026-01-02T06:30:00Z', '${U.admin}', 'approved', 'user', '${U.gita}',
     '{"status":"pending","role":"student"}', '{"status":"approved","role":"student"}'),
    ('${ANNEXE}', '2026-02-15T05:00:00Z', '${U.admin}', 'moved', 'user', '${U.gita}',
     '{"mess":"${MAIN}"}', '{"mess":"${ANNEXE}"}');
`;

async function bills(t: TestApp): Promise<void> {
  const admin = await t.adminToken();
  const daily = { chargeMethod: 'daily', dailyRate: 100 };
  expect((await t.post('/auth/admin/setup', messSetup(daily), { token: admin })).status).toBe(200);
  expect(
    (
      await t.post('/auth/admin/setup?mess=annexe', messSetup({ ...daily, messName: 'Annexe' }), {
        token: admin,
      })
    ).status,
  ).toBe(200);
  const days = async (month: string, mess: string) =>
    Object.fromEntries(
      (await t.get(`/analytics/shares?month=${month}&mess=${mess}`, { token: admin })).body.shares.map(
        (s: { fullName: string; days: number }) => [s.fullName, s.days],
      ),
    );
  // Asha from her approval on 10 January, Ravi from his registration; Gita is on the annexe's rolls only.
  expect(await days('2026-01', 'main')).toEqual({ 'Asha Verma': 22, 'Ravi Kumar': 31 });
  expect(await days('2026-02', 'annexe')).toEqual({ 'Gita Nair': 14 });
  expect(await days('2026-02', 'main')).toEqual({ 'Asha Verma': 28, 'Ravi Kumar': 28 });
}

async function periods(query: OwnerQuery): Promise<void> {
  const rows = await query<{
    user_id: string;
    mess_id: string;
    started_at: Date;
    ended_at: Date | null;
    dines: boolean;
  }>(
    'select user_id, mess_id, started_at, ended_at, dines from membership_periods order by started_at, user_id',
  );
  expect(
    rows.map((r) => [r.user_id, r.mess_id, new Date(r.started_at).toISOString(), r.ended_at, r.dines]),
  ).toEqual([
    [U.admin, MAIN, '2025-12-01T00:00:00.000Z', null, false],
    [U.dev, MAIN, '2025-12-01T04:00:00.000Z', null, false],
    [U.ravi, MAIN, '2025-12-20T04:00:00.000Z', null, true],
    [U.asha, MAIN, '2026-01-10T06:30:00.000Z', null, true],
    [U.gita, ANNEXE, '2026-02-15T05:00:00.000Z', null, true],
  ]);
  const [{ forced }] = await query<{ forced: boolean }>(
    "select relforcerowsecurity as forced from pg_class where relname = 'membership_periods'",
  );
  expect(forced).toBe(true);
}

describe('A database of 2.2 upgraded in place: every approved member on the rolls', () => {
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
