import { messSetup, TestApp } from '../support/app';

type Member = Awaited<ReturnType<TestApp['member']>>;

const paise = (rupees: number) => Math.round(rupees * 100);
const CATALOGUE = [
  { name: 'Egg', price: 12.5 },
  { name: 'Guest meal', price: 60 },
  { name: 'Sweet', price: 15.75 },
];

interface BillLine {
  userId: { _id: string; fullName: string };
  fullName: string;
  meals: number;
  share: number;
  extras: number;
  total: number;
}

/** RFC 4180 rows without quoted commas (the names here have none). */
const csvRows = (text: string) =>
  text
    .replace(/^\uFEFF/, '')
    .trim()
    .split('\r\n')
    .map((line) => line.split(',').map((cell) => cell.replace(/^"|"$/g, '')));

/**
 * Extras: the catalogue in the configuration, recording, listing and deleting them, and the bill that carries them
 * (JSON, CSV, the close's charges) to the paisa; members who do not dine are not on the bill.
 */
describe('Extras', () => {
  let t: TestApp;
  let admin: string;
  let manager: Member;
  let treasurer: Member;
  let a: Member;
  let b: Member;
  let c: Member;
  let d: Member;

  const record = (body: Record<string, unknown>, token = manager.token) => t.post('/extras', body, { token });
  const countAll = async () => {
    const res = await t.get('/extras?limit=100', { token: treasurer.token });
    expect(res.status).toBe(200);
    return res.body.pagination.total as number;
  };
  const present = (members: Member[], date: string, mealType: string) =>
    t.post(
      '/attendance/bulk',
      { date, mealType, marks: members.map((m) => ({ userId: m.id, status: 'present' })) },
      { token: manager.token },
    );
  const bill = async (month: string) => {
    const res = await t.get(`/analytics/shares?month=${month}`, { token: treasurer.token });
    expect(res.status).toBe(200);
    return res.body as {
      allocated: number;
      totalExtras: number;
      totalBilled: number;
      closed: boolean;
      shares: BillLine[];
    };
  };

  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.adminToken();
    expect(
      (await t.post('/auth/admin/setup', messSetup({ extraItems: CATALOGUE }), { token: admin })).status,
    ).toBe(200);
    manager = await t.member('manager', { fullName: 'Meera Manager' });
    treasurer = await t.member('treasurer', { fullName: 'Tara Treasurer' });
    a = await t.member('student', { fullName: 'A Member' });
    b = await t.member('student', { fullName: 'B Member' });
    c = await t.member('student', { fullName: 'C Guest Only' });
    d = await t.member('student', { fullName: 'D Non Diner' });
  }, 120_000);
  afterAll(() => t?.close());

  it('keeps the catalogue in the configuration: rupees at the edge, names unique ignoring case', async () => {
    const config = await t.get('/auth/admin/config', { token: admin });
    expect(config.body.config.extraItems).toEqual(CATALOGUE);

    for (const [items, field] of [
      [[...CATALOGUE, { name: 'EGG', price: 1 }], 'extraItems.3.name'],
      [[{ name: 'Egg', price: 0 }], 'extraItems.0.price'],
      [[{ name: 'Egg', price: 1.234 }], 'extraItems.0.price'],
      [[{ name: '', price: 5 }], 'extraItems.0.name'],
    ] as const) {
      const res = await t.put('/auth/admin/config', messSetup({ extraItems: items }), { token: admin });
      expect(res.status).toBe(400);
      expect(res.body.details.map((e: { field: string }) => e.field)).toContain(field);
    }
    expect((await t.get('/auth/admin/config', { token: admin })).body.config.extraItems).toEqual(CATALOGUE);
  });

  it('refuses bad input one field at a time, and changes nothing', async () => {
    const good = { userId: a.id, date: '2025-03-10', item: 'Egg', quantity: 2 };
    const before = await countAll();
    const cases: [Record<string, unknown>, number, string][] = [
      [{ ...good, item: 'Caviar' }, 400, 'item'],
      [{ ...good, quantity: 0 }, 400, 'quantity'],
      [{ ...good, quantity: 21 }, 400, 'quantity'],
      [{ ...good, quantity: 1.5 }, 400, 'quantity'],
      [{ ...good, date: '2025-02-30' }, 400, 'date'],
      [{ ...good, date: '2999-01-01' }, 400, 'date'],
      [{ ...good, mealType: 'Supper' }, 400, 'mealType'],
      [{ ...good, userId: 'not-a-uuid' }, 400, 'userId'],
    ];
    for (const [body, status, field] of cases) {
      const res = await record(body);
      expect([body, res.status]).toEqual([body, status]);
      expect(res.body.details.map((e: { field: string }) => e.field)).toEqual([field]);
    }
    const unknown = await record({ ...good, userId: '00000000-0000-4000-8000-000000000000' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('User not found');
    const pending = await t.post('/auth/register', {
      email: 'pending-extra@test.local',
      password: 'password-pending-1',
      fullName: 'Pending Person',
      collegeId: 'CP1',
      room: 'R-P1',
      phone: '9876512345',
    });
    const notApproved = await record({ ...good, userId: pending.body.userId });
    expect(notApproved.status).toBe(400);
    expect(notApproved.body.details).toEqual([
      { field: 'userId', message: 'the member is pending, not approved' },
    ]);
    // only managers and admins record extras
    expect((await record(good, a.token)).status).toBe(403);
    expect((await record(good, treasurer.token)).status).toBe(403);
    expect(await countAll()).toBe(before);
  });

  it("records an extra at the catalogue's price, fixed when recorded, with its audit row", async () => {
    const res = await record({
      userId: a.id,
      date: '2025-03-10',
      item: 'egg',
      quantity: 3,
      mealType: 'Dinner',
    });
    expect(res.status).toBe(201);
    expect(res.body.extra).toMatchObject({
      userId: { _id: a.id, fullName: 'A Member' },
      date: '2025-03-10',
      mealType: 'Dinner',
      item: 'Egg',
      unitPrice: 12.5,
      quantity: 3,
      amount: 37.5,
      recordedBy: { _id: manager.id, fullName: 'Meera Manager' },
    });
    const id = res.body.extra._id as string;

    // the egg costs more from now on: the recorded extra keeps its price, a new one takes the new price
    const dearer = CATALOGUE.map((i) => (i.name === 'Egg' ? { ...i, price: 14 } : i));
    expect(
      (await t.put('/auth/admin/config', messSetup({ extraItems: dearer }), { token: admin })).status,
    ).toBe(200);
    const later = await record({ userId: a.id, date: '2025-03-11', item: 'Egg', quantity: 1 });
    expect(later.body.extra).toMatchObject({ unitPrice: 14, amount: 14, mealType: null });
    const list = await t.get(`/extras?userId=${a.id}&month=2025-03`, { token: manager.token });
    const first = list.body.extras.find((e: { _id: string }) => e._id === id);
    expect(first).toMatchObject({ unitPrice: 12.5, amount: 37.5 });
    expect(list.body.totalAmount).toBe(51.5);

    const audit = await t.get(`/audit?entity=extra&entityId=${id}`, { token: treasurer.token });
    expect(audit.body.events).toHaveLength(1);
    expect(audit.body.events[0]).toMatchObject({
      action: 'created',
      actor: { _id: manager.id },
      after: { item: 'Egg', unitPricePaise: 1250, quantity: 3, amountPaise: 3750 },
    });
  });

  it('shows a member their own extras only; managers and treasurers see all, filtered and paged', async () => {
    expect((await record({ userId: b.id, date: '2025-03-12', item: 'Sweet', quantity: 2 })).status).toBe(201);
    const mine = await t.get(`/extras?userId=${b.id}`, { token: a.token });
    expect(mine.status).toBe(200);
    expect(mine.body.extras.length).toBeGreaterThan(0);
    expect(mine.body.extras.every((e: { userId: { _id: string } }) => e.userId._id === a.id)).toBe(true);
    const bs = await t.get(`/extras?userId=${b.id}`, { token: treasurer.token });
    expect(bs.body.extras.map((e: { item: string }) => e.item)).toEqual(['Sweet']);
    expect(bs.body.totalAmount).toBe(31.5);

    const day = await t.get('/extras?date=2025-03-11', { token: manager.token });
    expect(day.body.extras.map((e: { date: string }) => e.date)).toEqual(['2025-03-11']);
    const otherMonth = await t.get('/extras?month=2025-03&date=2025-04-01', { token: manager.token });
    expect(otherMonth.body.pagination.total).toBe(0);
    const paged = await t.get('/extras?month=2025-03&limit=1&page=2', { token: manager.token });
    expect(paged.body.extras).toHaveLength(1);
    expect(paged.body.pagination).toEqual({ page: 2, limit: 1, total: 3 });
    expect(paged.body.totalAmount).toBe(83);
    expect((await t.get('/extras?limit=101', { token: manager.token })).status).toBe(400);
    expect((await t.get('/extras?month=2025-13', { token: manager.token })).status).toBe(400);
  });

  it('deletes an extra (manager), 404 for an unknown one, with its audit row', async () => {
    const made = await record({ userId: b.id, date: '2025-03-13', item: 'Egg', quantity: 1 });
    const id = made.body.extra._id as string;
    expect((await t.delete(`/extras/${id}`, { token: a.token })).status).toBe(403);
    const gone = await t.delete(`/extras/${id}`, { token: manager.token });
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({ success: true, message: 'Extra deleted' });
    expect((await t.delete(`/extras/${id}`, { token: manager.token })).status).toBe(404);
    expect((await t.delete('/extras/not-a-uuid', { token: manager.token })).status).toBe(400);
    const audit = await t.get(`/audit?entity=extra&entityId=${id}`, { token: treasurer.token });
    expect(audit.body.events.map((e: { action: string }) => e.action)).toEqual(['deleted', 'created']);
    expect(audit.body.events[0].before).toMatchObject({ item: 'Egg', amountPaise: 1400 });
  });

  it('bills extras beside the share: JSON, CSV and the charges of the close agree to the paisa', async () => {
    // March: ₹9,001.01 spent; A 3 meals, B 2; C only a guest meal; D does not dine: nobody marks them present
    expect((await t.put(`/users/${d.id}/dines`, { dines: false }, { token: admin })).status).toBe(200);
    for (const [amount, date] of [
      [6000, '2025-03-05'],
      [3001.01, '2025-03-20'],
    ] as const) {
      const res = await t.post(
        '/expenses',
        { category: 'Groceries', amount, date, description: '' },
        { token: manager.token },
      );
      expect(res.status).toBe(201);
    }
    const withD = await present([a, b, d], '2025-03-01', 'Lunch');
    expect(withD.status).toBe(400);
    expect(withD.body.details).toEqual([
      { field: 'marks.2.userId', message: 'the member does not dine at the mess' },
    ]);
    expect((await present([a, b], '2025-03-01', 'Lunch')).status).toBe(201);
    expect((await present([a, b], '2025-03-02', 'Lunch')).status).toBe(201);
    expect((await present([a], '2025-03-03', 'Dinner')).status).toBe(201);
    expect((await record({ userId: c.id, date: '2025-03-15', item: 'Guest meal', quantity: 1 })).status).toBe(
      201,
    );
    // a non-diner gets no extras either: they are not billed
    const toD = await record({ userId: d.id, date: '2025-03-15', item: 'Egg', quantity: 1 });
    expect(toD.status).toBe(400);
    expect(toD.body.details[0].field).toBe('userId');

    const open = await bill('2025-03');
    const byId = new Map(open.shares.map((s) => [s.userId._id, s]));
    expect(byId.has(d.id)).toBe(false);
    expect(byId.get(a.id)).toMatchObject({ meals: 3, extras: 51.5 });
    expect(byId.get(b.id)).toMatchObject({ meals: 2, extras: 31.5 });
    expect(byId.get(c.id)).toEqual({
      userId: { _id: c.id, fullName: 'C Guest Only' },
      fullName: 'C Guest Only',
      meals: 0,
      share: 0,
      extras: 60,
      total: 60,
    });
    // proportional over A's 3 and B's 2 meals
    expect(byId.get(a.id)!.share).toBe(5400.61);
    expect(byId.get(b.id)!.share).toBe(3600.4);
    for (const line of open.shares) expect(paise(line.total)).toBe(paise(line.share) + paise(line.extras));
    expect(open.totalExtras).toBe(143);
    expect(paise(open.totalBilled)).toBe(paise(open.allocated) + paise(open.totalExtras));
    expect(open.shares.reduce((sum, s) => sum + paise(s.total), 0)).toBe(paise(open.totalBilled));

    const mine = await t.get('/analytics/shares/me?month=2025-03', { token: c.token });
    expect(mine.body).toMatchObject({ meals: 0, share: 0, extras: 60, total: 60 });
    const theirs = await t.get('/analytics/shares/me?month=2025-03', { token: d.token });
    expect(theirs.body).toMatchObject({ meals: 0, share: 0, extras: 0, total: 0 });

    const csv = await t.get('/analytics/shares.csv?month=2025-03', { token: treasurer.token });
    const [header, ...rows] = csvRows(csv.body as string);
    expect(header).toEqual([
      'month',
      'member_id',
      'full_name',
      'meals',
      'share_inr',
      'extras_inr',
      'total_inr',
      'method',
      'closed',
    ]);
    expect(rows.map((r) => [r[1], Number(r[4]), Number(r[5]), Number(r[6])])).toEqual(
      open.shares.map((s) => [s.userId._id, s.share, s.extras, s.total]),
    );

    // the close charges each member share + extras, and freezes the extras with the bill
    const closed = await t.post('/analytics/months/2025-03/close', undefined, { token: treasurer.token });
    expect(closed.status).toBe(200);
    let charged = 0;
    for (const line of open.shares) {
      const account = await t.get(`/accounts/${line.userId._id}`, { token: treasurer.token });
      const charges = account.body.entries.filter(
        (e: { kind: string; month: string }) => e.kind === 'charge' && e.month === '2025-03',
      );
      expect(charges.map((e: { amount: number }) => e.amount)).toEqual([line.total]);
      charged += paise(charges[0].amount);
    }
    expect(charged).toBe(paise(open.totalBilled));
    const dAccount = await t.get(`/accounts/${d.id}`, { token: treasurer.token });
    expect(dAccount.body.entries).toEqual([]);
    const monthAudit = await t.get('/audit?entity=month&entityId=2025-03', { token: treasurer.token });
    expect(monthAudit.body.events[0].after).toMatchObject({ extrasPaise: 14_300, chargedPaise: charged });

    // a closed month refuses extras, both ways, and its frozen bill keeps them
    const late = await record({ userId: a.id, date: '2025-03-30', item: 'Egg', quantity: 1 });
    expect(late.status).toBe(409);
    expect(late.body.error).toBe('Month 2025-03 is closed: its bill is frozen. An admin can reopen it.');
    const existing = await t.get(`/extras?userId=${a.id}&month=2025-03`, { token: manager.token });
    const before = existing.body.pagination.total;
    expect((await t.delete(`/extras/${existing.body.extras[0]._id}`, { token: manager.token })).status).toBe(
      409,
    );
    expect(
      (await t.get(`/extras?userId=${a.id}&month=2025-03`, { token: manager.token })).body.pagination.total,
    ).toBe(before);
    const frozen = await bill('2025-03');
    expect(frozen.closed).toBe(true);
    expect(frozen.shares).toEqual(open.shares);
    expect(frozen.totalBilled).toBe(open.totalBilled);
    // who dines changing later does not touch a frozen bill
    expect((await t.put(`/users/${d.id}/dines`, { dines: true }, { token: admin })).status).toBe(200);
    expect((await bill('2025-03')).shares).toEqual(open.shares);
    expect((await t.put(`/users/${d.id}/dines`, { dines: false }, { token: admin })).status).toBe(200);
  });

  it('keeps what a member ate and took while dining on the bill when they stop, and nobody marks them present after', async () => {
    expect(
      (
        await t.post(
          '/expenses',
          { category: 'Gas', amount: 1000, date: '2025-04-02' },
          { token: manager.token },
        )
      ).status,
    ).toBe(201);
    expect((await t.put(`/users/${d.id}/dines`, { dines: true }, { token: admin })).status).toBe(200);
    expect((await present([a, d], '2025-04-01', 'Lunch')).status).toBe(201);
    // two eggs at ₹14 (the catalogue's price since the test above)
    expect((await record({ userId: d.id, date: '2025-04-01', item: 'Egg', quantity: 2 })).status).toBe(201);
    const lines = async () =>
      new Map((await bill('2025-04')).shares.map((s) => [s.userId._id, [s.share, s.extras]]));
    const dining = await lines();
    expect(dining).toEqual(
      new Map([
        [a.id, [500, 0]],
        [d.id, [500, 28]],
      ]),
    );

    // D stops dining: April's bill (read from the cache or rebuilt) still bills their meal and eggs
    expect((await t.put(`/users/${d.id}/dines`, { dines: false }, { token: admin })).status).toBe(200);
    expect(await lines()).toEqual(dining);
    // and from now on nobody marks them present or records extras for them; an absent mark is still taken
    const single = await t.post(
      '/attendance',
      { userId: d.id, date: '2025-04-02', mealType: 'Lunch', status: 'present' },
      { token: manager.token },
    );
    expect([single.status, single.body.error]).toEqual([409, 'The member does not dine at the mess']);
    const bulk = await present([a, d], '2025-04-02', 'Lunch');
    expect(bulk.status).toBe(400);
    expect(bulk.body.details).toEqual([
      { field: 'marks.1.userId', message: 'the member does not dine at the mess' },
    ]);
    const past = (await t.get(`/attendance?userId=${d.id}&date=2025-04-01`, { token: manager.token })).body
      .attendance[0];
    const absent = await t.put(`/attendance/${past._id}`, { status: 'absent' }, { token: manager.token });
    expect(absent.status).toBe(200);
    const back = await t.put(`/attendance/${past._id}`, { status: 'present' }, { token: manager.token });
    expect([back.status, back.body.error]).toEqual([409, 'The member does not dine at the mess']);
    expect((await record({ userId: d.id, date: '2025-04-02', item: 'Egg', quantity: 1 })).status).toBe(400);
    // the correction moved D's meal off the bill: A carries the month, D keeps the eggs
    expect(await lines()).toEqual(
      new Map([
        [a.id, [1000, 0]],
        [d.id, [0, 28]],
      ]),
    );

    // a cached bill follows extras recorded and deleted at once
    const egg = await record({ userId: a.id, date: '2025-04-03', item: 'Egg', quantity: 1 });
    expect(egg.status).toBe(201);
    expect((await lines()).get(a.id)).toEqual([1000, 14]);
    expect((await t.delete(`/extras/${egg.body.extra._id}`, { token: manager.token })).status).toBe(200);
    expect((await lines()).get(a.id)).toEqual([1000, 0]);
  });

  it('serialises extras with a close: each one is in the frozen bill and charged, or refused 409', async () => {
    expect((await present([a, b], '2025-05-02', 'Lunch')).status).toBe(201);
    const writes = Array.from({ length: 12 }, (_, i) =>
      record({ userId: [a, b, c][i % 3].id, date: '2025-05-10', item: 'Sweet', quantity: 1 + (i % 4) }),
    );
    const close = t.post('/analytics/months/2025-05/close', undefined, { token: treasurer.token });
    const answers = await Promise.all(writes);
    expect((await close).status).toBe(200);
    expect(answers.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    const recorded = answers.filter((r) => r.status === 201).map((r) => r.body.extra);
    const expected = new Map<string, number>();
    for (const e of recorded) expected.set(e.userId._id, (expected.get(e.userId._id) ?? 0) + paise(e.amount));

    const frozen = await bill('2025-05');
    expect(
      new Map(frozen.shares.filter((s) => s.extras > 0).map((s) => [s.userId._id, paise(s.extras)])),
    ).toEqual(expected);
    const listed = await t.get('/extras?month=2025-05&limit=100', { token: treasurer.token });
    expect(listed.body.pagination.total).toBe(recorded.length);
    let charged = 0;
    for (const line of frozen.shares) {
      const account = await t.get(`/accounts/${line.userId._id}`, { token: treasurer.token });
      const charges = account.body.entries.filter(
        (e: { kind: string; month: string }) => e.kind === 'charge' && e.month === '2025-05',
      );
      expect(charges.map((e: { amount: number }) => e.amount)).toEqual(line.total > 0 ? [line.total] : []);
      charged += line.total > 0 ? paise(charges[0].amount) : 0;
    }
    expect(charged).toBe(paise(frozen.totalBilled));
  });
});
