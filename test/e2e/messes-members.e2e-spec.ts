import { messSetup, TestApp } from '../support/app';
import { fixClock } from '../support/notifications';

type Member = Awaited<ReturnType<TestApp['member']>>;

/** An instant of the mess's clock (Asia/Kolkata, +05:30). */
const ist = (date: string, time: string) => new Date(`${date}T${time}:00+05:30`);

/**
 * Extension 2.2: members belong to one mess at a time. Registration into a mess, moving one or a batch, capacity,
 * the counter's pass bound to its mess, and a member moved mid-month billed by both messes for what they ate in each.
 */
describe('Messes: members', () => {
  let t: TestApp;
  let admin: string;
  let north: string;
  let south: string;
  let northManager: Member;
  let southManager: Member;
  let southTreasurer: Member;

  const mark = (m: Member, date: string, mealType: string) =>
    t.post('/attendance', { date, mealType, status: 'present' }, { token: m.token });

  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.adminToken();
    fixClock(t, ist('2030-03-10', '08:00'));
    expect(
      (await t.post('/auth/admin/setup', messSetup({ messName: 'Central' }), { token: admin })).status,
    ).toBe(200);
    const n = await t.post('/messes', messSetup({ messName: 'North', slug: 'north' }), { token: admin });
    const s = await t.post('/messes', messSetup({ messName: 'South', slug: 'south', capacity: 3 }), {
      token: admin,
    });
    north = n.body.mess._id;
    south = s.body.mess._id;
    northManager = await t.member('manager', { messId: north });
    southManager = await t.member('manager', { messId: south });
    southTreasurer = await t.member('treasurer', { messId: south });
  }, 90_000);
  afterAll(() => t?.close());

  it('registers members into the mess they name; an unknown mess is 400 naming mess', async () => {
    const body = (email: string, mess?: string) => ({
      email,
      password: 'a-good-password-1',
      fullName: 'Neha Rao',
      collegeId: 'CS1',
      room: 'N-1',
      phone: '9876500001',
      ...(mess ? { mess } : {}),
    });
    const reg = await t.post('/auth/register', body('neha@college.edu', 'north'));
    expect(reg.status).toBe(201);
    const user = await t.get(`/users/${reg.body.userId}`, { token: admin });
    expect(user.body.user.mess).toEqual({ _id: north, slug: 'north', messName: 'North' });
    const bad = await t.post('/auth/register', body('x@college.edu', 'nowhere'));
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([
      { field: 'mess', message: 'no mess has the slug or _id "nowhere"; GET /api/messes lists them' },
    ]);
    const plain = await t.post('/auth/register', body('y@college.edu'));
    expect((await t.get(`/users/${plain.body.userId}`, { token: admin })).body.user.mess.slug).toBe('main');

    // Admins list every mess, or the one they name; another mess's member is not there for a manager.
    const all = await t.get('/users?limit=100', { token: admin });
    expect(all.body.users.map((u: { mess: { slug: string } }) => u.mess.slug)).toEqual(
      expect.arrayContaining(['main', 'north', 'south']),
    );
    const onlyNorth = await t.get('/users?limit=100&mess=north', { token: admin });
    expect(new Set(onlyNorth.body.users.map((u: { mess: { slug: string } }) => u.mess.slug))).toEqual(
      new Set(['north']),
    );
    expect((await t.get(`/users/${reg.body.userId}`, { token: southManager.token })).status).toBe(404);
    expect((await t.get(`/users/${reg.body.userId}`, { token: northManager.token })).status).toBe(200);
    // A public route acts in the caller's own mess when a token comes with it, else in the first mess.
    expect((await t.get('/auth/admin/config', { token: northManager.token })).body.config.slug).toBe('north');
    expect((await t.get('/auth/admin/config')).body.config.slug).toBe('main');

    // The admin (of the first mess) approves and sets the dining of North's member without naming North: the
    // changes go into North's audit trail, not the first mess's.
    expect((await t.put(`/users/${reg.body.userId}/approve`, undefined, { token: admin })).status).toBe(200);
    expect((await t.put(`/users/${reg.body.userId}/dines`, { dines: false }, { token: admin })).status).toBe(
      200,
    );
    const trail = async (mess: string) =>
      (await t.get(`/audit?entity=user&limit=100&mess=${mess}`, { token: admin })).body.events
        .filter((e: { entityId: string }) => e.entityId === reg.body.userId)
        .map((e: { action: string }) => e.action)
        .sort();
    expect(await trail('north')).toEqual(['approved', 'dines-changed']);
    expect(await trail('main')).toEqual([]);
  });

  it('keeps a mess to its capacity: approvals and moves into a full mess are 409 and change nothing', async () => {
    // South holds 3 approved members: its manager and treasurer, and one more.
    const third = await t.member('student', { messId: south });
    const waiting = await t.post('/auth/register', {
      email: 'late@college.edu',
      password: 'a-good-password-1',
      fullName: 'Late Comer',
      collegeId: 'CS9',
      room: 'S-9',
      phone: '9876500009',
      mess: 'south',
    });
    const approve = await t.put(`/users/${waiting.body.userId}/approve`, undefined, { token: admin });
    expect(approve).toMatchObject({ status: 409, body: { error: 'Mess South is full' } });
    expect((await t.get(`/users/${waiting.body.userId}`, { token: admin })).body.user.status).toBe('pending');

    const a = await t.member('student');
    const b = await t.member('student');
    const batch = await t.post('/messes/south/members', { userIds: [a.id, b.id] }, { token: admin });
    expect(batch).toMatchObject({ status: 409, body: { error: 'Mess South is full' } });
    expect((await t.get(`/users/${a.id}`, { token: admin })).body.user.mess.slug).toBe('main');

    // A batch racing an approval into a mess with one place left: never over capacity.
    await t.put(`/users/${third.id}/mess`, { mess: 'main' }, { token: admin });
    const [moved, approved] = await Promise.all([
      t.post('/messes/south/members', { userIds: [a.id] }, { token: admin }),
      t.put(`/users/${waiting.body.userId}/approve`, undefined, { token: admin }),
    ]);
    expect([moved.status, approved.status].sort()).toEqual([200, 409]);
    const southNow = await t.get('/messes/south');
    expect(southNow.body.mess.members).toBe(3);

    // Bad batches: named fields, nothing moved.
    const bad = await t.post('/messes/south/members', { userIds: [] }, { token: admin });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { field: string }) => d.field)).toEqual(['userIds']);
    expect((await t.post('/messes/nowhere/members', { userIds: [a.id] }, { token: admin })).status).toBe(404);
    expect(
      (await t.post('/messes/south/members', { userIds: [a.id] }, { token: southManager.token })).status,
    ).toBe(403);
  });

  it('bills a member moved mid-month in both messes for what they ate in each; the old pass is refused', async () => {
    const mover = await t.member('student', { messId: north });
    expect((await mark(mover, '2030-03-10', 'Lunch')).status).toBe(201);
    expect((await mark(mover, '2030-03-10', 'Dinner')).status).toBe(201);
    const pass = (await t.get('/attendance/pass?mealType=Breakfast', { token: mover.token })).body
      .pass as string;
    const leave = await t.post(
      '/leaves',
      { startDate: '2030-03-20', endDate: '2030-03-21' },
      { token: mover.token },
    );
    expect(leave.status).toBe(201);

    const moved = await t.put(`/users/${mover.id}/mess`, { mess: 'main' }, { token: admin });
    expect(moved.status).toBe(200);
    expect(moved.body.user.mess.slug).toBe('main');
    // Moving to the mess one is in changes nothing.
    expect((await t.put(`/users/${mover.id}/mess`, { mess: 'main' }, { token: admin })).status).toBe(200);

    // The leave in the old mess whose meals are not over was cancelled.
    const leaves = await t.get(`/leaves?mess=north`, { token: mover.token });
    expect(leaves.body.leaves.map((l: { status: string }) => l.status)).toEqual(['cancelled']);

    // From now on the member marks in the new mess.
    expect((await mark(mover, '2030-03-11', 'Lunch')).status).toBe(201);

    // The pass issued in North is refused at another mess's counter.
    const adminScan = await t.post('/attendance/scan', { pass }, { token: admin });
    expect(adminScan).toMatchObject({ status: 409, body: { error: 'This pass is for North' } });

    await t.post(
      '/expenses',
      { category: 'Gas', amount: 300, description: 'n', date: '2030-03-10' },
      { token: northManager.token },
    );
    const main = await t.member('manager');
    await t.post(
      '/expenses',
      { category: 'Gas', amount: 100, description: 'm', date: '2030-03-11' },
      { token: main.token },
    );

    const northBill = await t.get('/analytics/shares?month=2030-03', { token: northManager.token });
    const mainBill = await t.get('/analytics/shares?month=2030-03', { token: main.token });
    const row = (bill: { body: { shares: { userId: { _id: string }; meals: number }[] } }) =>
      bill.body.shares.find((s) => s.userId._id === mover.id);
    expect(row(northBill)?.meals).toBe(2);
    expect(row(mainBill)?.meals).toBe(1);
    // The member reads their own records of the mess they left.
    const mine = await t.get('/analytics/shares/me?month=2030-03&mess=north', { token: mover.token });
    expect(mine.body.meals).toBe(2);
    // …but may not act there otherwise.
    expect((await t.get('/meals?mess=north', { token: mover.token })).status).toBe(403);
  });

  it('refuses a batch whose userIds are not distinct UUID strings: 400 naming userIds, never a 500', async () => {
    const a = await t.member('student', { messId: north });
    const refused = async (userIds: unknown) => {
      const res = await t.post('/messes/north/members', { userIds }, { token: admin });
      return {
        userIds,
        status: res.status,
        fields: res.body.details?.map((d: { field: string }) => d.field),
      };
    };
    const bad = [[1], [null], [{}], [[a.id]], [true], [a.id, 7], [a.id, { id: a.id }], 'x', {}, 1, null];
    const answers = [];
    for (const userIds of bad) answers.push(await refused(userIds));
    expect(answers).toEqual(bad.map((userIds) => ({ userIds, status: 400, fields: ['userIds'] })));
    // The same id twice, whatever its case, is one bad field too, naming the id (not 'All userIds's elements must be
    // unique', the first week's complaint).
    expect(await refused([a.id, a.id.toUpperCase()])).toEqual({
      userIds: [a.id, a.id.toUpperCase()],
      status: 400,
      fields: ['userIds'],
    });
    const twice = await t.post('/messes/north/members', { userIds: [a.id, a.id] }, { token: admin });
    expect(twice.body.details).toEqual([{ field: 'userIds', message: `userIds names ${a.id} twice` }]);
  });

  it("refuses another mess's staff: a treasurer acts on their own mess's accounts only", async () => {
    expect((await t.get('/accounts?mess=north', { token: southTreasurer.token })).status).toBe(403);
    expect((await t.get('/accounts', { token: southTreasurer.token })).status).toBe(200);
  });
});
