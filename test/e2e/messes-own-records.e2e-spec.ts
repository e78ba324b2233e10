import { messSetup, TestApp } from '../support/app';
import { fixClock } from '../support/notifications';

type Member = Awaited<ReturnType<TestApp['member']>>;

/** An instant of the mess's clock (Asia/Kolkata, +05:30). */
const ist = (date: string, time: string) => new Date(`${date}T${time}:00+05:30`);

/**
 * Extension 2.2, "which mess a request acts in": naming another mess is 403 for a manager, treasurer or student,
 * except the own-record routes (`GET /accounts/me`, their statement, `GET /attendance`, `GET /analytics/shares/me`,
 * `GET /extras`, `GET /leaves`) in a mess the member really belonged to, which show their own records there only.
 */
describe('Messes: own records of a mess one belonged to', () => {
  let t: TestApp;
  let admin: string;
  let alphaManager: Member;
  let alphaTreasurer: Member;
  /** Alpha's member all along: their records are in Alpha too, and nobody else's to read. */
  let peer: Member;
  /** In Alpha first, then moved to Gamma. */
  let mover: Member;
  /** Gamma's member, never in Alpha. */
  let stranger: Member;
  let gammaManager: Member;

  /** The own-record routes, as `member` reads them in `mess`. */
  const ownRecordRoutes = (member: Member, mess: string) => [
    `/accounts/me?mess=${mess}`,
    `/accounts/${member.id}?mess=${mess}`,
    `/accounts/${member.id}/statement?from=2030-03&to=2030-03&mess=${mess}`,
    `/attendance?mess=${mess}`,
    `/analytics/shares/me?month=2030-03&mess=${mess}`,
    `/extras?mess=${mess}`,
    `/leaves?mess=${mess}`,
  ];

  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.adminToken();
    fixClock(t, ist('2030-03-10', '08:00'));
    expect((await t.post('/auth/admin/setup', messSetup(), { token: admin })).status).toBe(200);
    const withEggs = (messName: string, slug: string) =>
      messSetup({ messName, slug, extraItems: [{ name: 'Egg', price: 12 }] });
    const alpha = await t.post('/messes', withEggs('Alpha', 'alpha'), { token: admin });
    const gamma = await t.post('/messes', withEggs('Gamma', 'gamma'), { token: admin });
    expect([alpha.status, gamma.status]).toEqual([201, 201]);
    alphaManager = await t.member('manager', { messId: alpha.body.mess._id });
    alphaTreasurer = await t.member('treasurer', { messId: alpha.body.mess._id });
    peer = await t.member('student', { messId: alpha.body.mess._id });
    mover = await t.member('student', { messId: alpha.body.mess._id });
    stranger = await t.member('student', { messId: gamma.body.mess._id });
    gammaManager = await t.member('manager', { messId: gamma.body.mess._id });

    // What Alpha records of the mover and of the peer: marks, extras, leave, an account entry; and an expense.
    for (const m of [mover, peer]) {
      const mark = await t.post(
        '/attendance',
        { date: '2030-03-10', mealType: 'Lunch', status: 'present' },
        { token: m.token },
      );
      expect(mark.status).toBe(201);
      const extra = { userId: m.id, date: '2030-03-10', item: 'Egg', quantity: 1 };
      expect((await t.post('/extras', extra, { token: alphaManager.token })).status).toBe(201);
      const leave = { startDate: '2030-03-20', endDate: '2030-03-21' };
      expect((await t.post('/leaves', leave, { token: m.token })).status).toBe(201);
      const adjustment = { direction: 'debit', amount: 150, note: 'Guest meals' };
      expect(
        (await t.post(`/accounts/${m.id}/adjustments`, adjustment, { token: alphaTreasurer.token })).status,
      ).toBe(201);
    }
    const expense = { category: 'Gas', amount: 300, description: 'Cylinder', date: '2030-03-10' };
    expect((await t.post('/expenses', expense, { token: alphaManager.token })).status).toBe(201);
    // And in February, a month the mover is not on Alpha's bill.
    const february = { category: 'Gas', amount: 500, description: 'Cylinder', date: '2030-02-10' };
    expect((await t.post('/expenses', february, { token: alphaManager.token })).status).toBe(201);

    const moved = await t.put(`/users/${mover.id}/mess`, { mess: 'gamma' }, { token: admin });
    expect([moved.status, moved.body.user?.mess?.slug]).toEqual([200, 'gamma']);
  }, 90_000);
  afterAll(() => t?.close());

  it('refuses a member who never belonged to the mess on every own-record route: 403 Forbidden', async () => {
    // Gamma's staff are no more at home in Alpha than its students.
    for (const member of [stranger, gammaManager]) {
      const answers = [];
      for (const url of ownRecordRoutes(member, 'alpha')) {
        const res = await t.get(url, { token: member.token });
        answers.push([url, res.status, res.body.error]);
      }
      expect(answers).toEqual(ownRecordRoutes(member, 'alpha').map((url) => [url, 403, 'Forbidden']));
    }
    // In their own mess, named or not, the same routes answer.
    for (const url of ownRecordRoutes(stranger, 'gamma'))
      expect([url, (await t.get(url, { token: stranger.token })).status]).toEqual([url, 200]);
  });

  it('lets a member moved out of a mess read their own records there, and only their own', async () => {
    const get = (url: string) => t.get(url, { token: mover.token });
    for (const url of ownRecordRoutes(mover, 'alpha'))
      expect([url, (await get(url)).status]).toEqual([url, 200]);

    const account = await get('/accounts/me?mess=alpha');
    expect([account.body.balance, account.body.pagination.total]).toEqual([150, 1]);
    const statement = await get(`/accounts/${mover.id}/statement?from=2030-03&to=2030-03&mess=alpha`);
    expect([statement.body.member._id, statement.body.closing]).toEqual([mover.id, 150]);

    const marks = await get('/attendance?mess=alpha');
    expect(marks.body.attendance.map((a: { userId: string }) => a.userId)).toEqual([mover.id]);
    // Naming another member changes nothing for a student.
    const peersMarks = await get(`/attendance?mess=alpha&userId=${peer.id}`);
    expect(peersMarks.body.attendance.map((a: { userId: string }) => a.userId)).toEqual([mover.id]);

    const extras = await get('/extras?mess=alpha');
    expect(extras.body.extras.map((e: { userId: { _id: string } }) => e.userId._id)).toEqual([mover.id]);
    expect(extras.body.totalAmount).toBe(12);

    // The move cancelled their leave in Alpha; it is still theirs to read.
    const leaves = await get('/leaves?mess=alpha');
    expect(
      leaves.body.leaves.map((l: { userId: { _id: string }; status: string }) => [l.userId._id, l.status]),
    ).toEqual([[mover.id, 'cancelled']]);

    // Their line of Alpha's March bill: one of the month's two meals, the egg; the month's figures explain it.
    const share = await get('/analytics/shares/me?month=2030-03&mess=alpha');
    expect(share.body).toMatchObject({
      month: '2030-03',
      meals: 1,
      share: 150,
      extras: 12,
      total: 162,
      totalExpenses: 300,
      activeMembers: 2,
      totalMeals: 2,
    });

    // Another member's account of Alpha is not theirs.
    const peersAccount = await get(`/accounts/${peer.id}?mess=alpha`);
    expect(peersAccount.status).toBe(403);
    const peersStatement = await get(`/accounts/${peer.id}/statement?mess=alpha`);
    expect(peersStatement.status).toBe(403);
  });

  it("shows no figure of a past mess's month the member is not on the bill of", async () => {
    const share = await t.get('/analytics/shares/me?month=2030-02&mess=alpha', { token: mover.token });
    expect(share.body).toMatchObject({
      month: '2030-02',
      meals: 0,
      share: 0,
      extras: 0,
      total: 0,
      totalExpenses: 0,
      activeMembers: 0,
      totalMeals: 0,
    });
    // A member of the mess reads its figures of any month as before.
    const peers = await t.get('/analytics/shares/me?month=2030-02', { token: peer.token });
    expect([peers.body.meals, peers.body.totalExpenses]).toEqual([0, 500]);
  });

  it('lets a member moved out of a mess pay what they owe there: its UPI link, a claim the treasurer accepts', async () => {
    const upi = { vpa: 'alpha.mess@okbank', payeeName: 'Alpha Mess' };
    const set = await t.patch('/auth/admin/config', { upi }, { token: alphaTreasurer.token });
    expect(set.status).toBe(200);
    // a stranger to Alpha gets neither
    expect((await t.get('/accounts/me/upi?mess=alpha', { token: stranger.token })).status).toBe(403);
    const strangers = { amount: 1, date: '2030-03-10', utr: '300000000001' };
    const refused = await t.post('/accounts/me/payment-claims?mess=alpha', strangers, {
      token: stranger.token,
    });
    expect([refused.status, refused.body.error]).toEqual([403, 'Forbidden']);

    // the link is for Alpha's balance, to Alpha's UPI id, in Alpha's name
    const link = await t.get('/accounts/me/upi?mess=alpha', { token: mover.token });
    expect(link.status).toBe(200);
    expect(link.body.amount).toBe(150);
    expect(link.body.upiLink).toBe(
      `upi://pay?pa=alpha.mess%40okbank&pn=Alpha%20Mess&am=150.00&cu=INR&tn=Alpha%20-%20${encodeURIComponent(mover.fullName)}`,
    );
    // in their own mess (Gamma, no UPI id) the answer is Gamma's
    expect((await t.get('/accounts/me/upi', { token: mover.token })).status).toBe(409);

    const claimed = await t.post(
      '/accounts/me/payment-claims?mess=alpha',
      { amount: 150, date: '2030-03-10', utr: '300000000002' },
      { token: mover.token },
    );
    expect(claimed.status).toBe(201);
    expect(claimed.body.claim).toMatchObject({ userId: { _id: mover.id }, amount: 150, status: 'pending' });
    const pending = await t.get('/accounts/payment-claims?status=pending', { token: alphaTreasurer.token });
    expect(pending.body.claims.map((c: { _id: string }) => c._id)).toEqual([claimed.body.claim._id]);
    const accepted = await t.put(`/accounts/payment-claims/${claimed.body.claim._id}/accept`, undefined, {
      token: alphaTreasurer.token,
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ claim: { status: 'accepted' }, balance: 0 });
    expect((await t.get('/accounts/me?mess=alpha', { token: mover.token })).body.balance).toBe(0);
    // Gamma saw none of it
    expect((await t.get('/accounts/me', { token: mover.token })).body.balance).toBe(0);
    const gammas = await t.get('/accounts/payment-claims', { token: mover.token });
    expect(gammas.body.claims).toEqual([]);
  });

  it('refuses the moved member everything else of the mess they left: 403 Forbidden', async () => {
    const get = (url: string) => t.get(url, { token: mover.token });
    for (const url of [
      '/expenses?mess=alpha',
      '/meals?mess=alpha',
      '/analytics/shares?month=2030-03&mess=alpha',
      '/analytics/expenses?mess=alpha',
      '/accounts/payment-claims?mess=alpha',
      '/feedback?mess=alpha',
    ]) {
      const res = await get(url);
      expect([url, res.status, res.body.error]).toEqual([url, 403, 'Forbidden']);
    }
    const mark = await t.post(
      '/attendance?mess=alpha',
      { date: '2030-03-10', mealType: 'Dinner', status: 'present' },
      { token: mover.token },
    );
    expect([mark.status, mark.body.error]).toEqual([403, 'Forbidden']);
    const leave = await t.post(
      '/leaves?mess=alpha',
      { startDate: '2030-03-25', endDate: '2030-03-26' },
      { token: mover.token },
    );
    expect([leave.status, leave.body.error]).toEqual([403, 'Forbidden']);
  });
});
