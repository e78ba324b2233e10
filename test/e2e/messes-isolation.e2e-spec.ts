import { messSetup, TestApp } from '../support/app';

/**
 * What the cross-mess fuzz identity found (extension 2.2, test/fuzz/cross-mess.ts), held by name: a treasurer's
 * account paths act on the accounts of their own mess (its members, and anyone with entries in it), never on a member
 * of another mess; and a `mess` the query cannot read is refused, not taken for the caller's own mess.
 */
describe('Accounts of one mess, seen from another', () => {
  let t: TestApp;
  let admin: string;
  type Member = Awaited<ReturnType<TestApp['member']>>;
  let mainTreasurer: Member;
  let mainStudent: Member;
  let mover: Member;
  let otherTreasurer: Member;
  let otherStudent: Member;
  let otherMessId: string;

  const ids = (res: { body: { accounts: { userId: { _id: string } }[] } }) =>
    res.body.accounts.map((a) => a.userId._id).sort();
  const adjustment = { direction: 'debit', amount: 150, note: 'Guest meals' };

  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.adminToken();
    expect((await t.post('/auth/admin/setup', messSetup(), { token: admin })).status).toBe(200);
    const made = await t.post('/messes', messSetup({ messName: 'Girls Mess', slug: 'girls' }), {
      token: admin,
    });
    expect(made.status).toBe(201);
    otherMessId = made.body.mess._id;
    mainTreasurer = await t.member('treasurer');
    mainStudent = await t.member('student');
    mover = await t.member('student');
    otherTreasurer = await t.member('treasurer', { messId: otherMessId });
    otherStudent = await t.member('student', { messId: otherMessId });
    for (const m of [mainStudent, mover])
      expect(
        (await t.post(`/accounts/${m.id}/adjustments`, adjustment, { token: mainTreasurer.token })).status,
      ).toBe(201);
    // The mover leaves owing the first mess ₹150.
    const moved = await t.put(`/users/${mover.id}/mess`, { mess: 'girls' }, { token: admin });
    expect([moved.status, moved.body]).toEqual([200, expect.anything()]);
  });
  afterAll(() => t?.close());

  it("lists the mess's own members and those with entries in it, no one else's", async () => {
    const other = await t.get('/accounts?limit=100', { token: otherTreasurer.token });
    expect(ids(other)).toEqual([mover.id, otherStudent.id, otherTreasurer.id].sort());
    expect(
      other.body.accounts.find((a: { userId: { _id: string } }) => a.userId._id === mover.id).balance,
    ).toBe(0);
    const main = await t.get('/accounts?limit=100', { token: mainTreasurer.token });
    // The mover still owes the first mess: their account there stays on its list.
    expect(ids(main)).toEqual(expect.arrayContaining([mainStudent.id, mainTreasurer.id, mover.id]));
    expect(ids(main)).not.toContain(otherStudent.id);
    expect(ids(main)).not.toContain(otherTreasurer.id);
  });

  it('answers 404 for a member of another mess: their account, statement, payments and adjustments', async () => {
    const token = otherTreasurer.token;
    const payment = { amount: 100, date: '2025-03-14', method: 'upi' };
    for (const res of [
      await t.get(`/accounts/${mainStudent.id}`, { token }),
      await t.get(`/accounts/${mainStudent.id}/statement`, { token }),
      await t.post(`/accounts/${mainStudent.id}/payments`, payment, { token }),
      await t.post(`/accounts/${mainStudent.id}/adjustments`, adjustment, { token }),
      await t.post(`/accounts/${mainStudent.id}/opening`, adjustment, { token }),
    ])
      expect([res.status, res.body.error]).toEqual([404, 'Member not found']);
    // The first mess's account is as it was, and its treasurer still reads a former member's.
    const account = await t.get(`/accounts/${mainStudent.id}`, { token: mainTreasurer.token });
    expect([account.body.balance, account.body.pagination.total]).toEqual([150, 1]);
    const former = await t.get(`/accounts/${mover.id}`, { token: mainTreasurer.token });
    expect([former.status, former.body.balance]).toEqual([200, 150]);
    // The mover reads what they owe the mess they left, naming it; a member who never belonged there may not.
    const owed = await t.get('/accounts/me?mess=main', { token: mover.token });
    expect([owed.status, owed.body.balance]).toEqual([200, 150]);
    const never = await t.get('/accounts/me?mess=main', { token: otherStudent.token });
    expect([never.status, never.body.error]).toEqual([403, 'Forbidden']);
    // In the mess they belong to now the mover's account starts empty.
    const now = await t.get(`/accounts/${mover.id}`, { token });
    expect([now.status, now.body.balance, now.body.pagination.total]).toEqual([200, 0, 0]);
  });

  it("refuses a mess parameter that is not well-formed instead of acting in the caller's own mess", async () => {
    for (const url of ['/auth/admin/config?mess=%E0%A4%A', '/notifications/preferences?mess=%FF']) {
      const res = await t.get(url, { token: admin });
      expect([res.status, res.body.details]).toEqual([
        400,
        [{ field: 'mess', message: 'mess is malformed (bad percent-encoding or not UTF-8 Unicode)' }],
      ]);
    }
    const put = await t.put('/auth/admin/config?mess=%C0%AF', messSetup({ messName: 'Renamed' }), {
      token: admin,
    });
    expect(put.status).toBe(400);
    expect((await t.get('/auth/admin/config')).body.config.messName).toBe(messSetup().messName);
  });
});
