import { sql } from 'drizzle-orm';
import { FIRST_MESS_ID, inMess } from '../../src/common/tenancy/mess-scope';
import { Database } from '../../src/database/database';
import { messSetup, TestApp } from '../support/app';

/** Extension 2.2: many messes in one deployment, each sealed from the others. */
describe('Messes', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.adminToken();
    expect(
      (await t.post('/auth/admin/setup', messSetup({ messName: 'Central Mess' }), { token: admin })).status,
    ).toBe(200);
  });
  afterAll(() => t?.close());

  const today = () => new Date().toISOString().slice(0, 10);

  it('starts with the first mess, slug main, configured by the 2.0 setup', async () => {
    const res = await t.get('/messes');
    expect(res.status).toBe(200);
    expect(res.body.messes).toEqual([
      expect.objectContaining({
        _id: FIRST_MESS_ID,
        slug: 'main',
        messName: 'Central Mess',
        configured: true,
      }),
    ]);
    expect((await t.get('/messes/main')).body.mess._id).toBe(FIRST_MESS_ID);
    expect(await t.get('/messes/nowhere')).toMatchObject({ status: 404, body: { error: 'Mess not found' } });
    expect((await t.get('/auth/admin/config')).body.config).toMatchObject({ slug: 'main', capacity: null });
  });

  it('creates messes (admin only): one slug or name once, bad input refused naming the fields', async () => {
    const created = await t.post(
      '/messes',
      messSetup({ messName: 'Hostel 7 Mess', slug: 'hostel-7', capacity: 2 }),
      {
        token: admin,
      },
    );
    expect(created.status).toBe(201);
    expect(created.body.mess).toMatchObject({
      slug: 'hostel-7',
      messName: 'Hostel 7 Mess',
      capacity: 2,
      members: 0,
    });
    expect(created.body.config).toMatchObject({
      messName: 'Hostel 7 Mess',
      configured: true,
      slug: 'hostel-7',
    });

    const bad = await t.post('/messes', messSetup({ slug: '-Bad-', capacity: 0 }), { token: admin });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['capacity', 'slug']);

    const student = await t.member('student');
    expect((await t.post('/messes', messSetup({ slug: 'x-mess' }), { token: student.token })).status).toBe(
      403,
    );

    // Two admins at once, one slug: one 201, one 409.
    const race = await Promise.all(
      [1, 2].map((n) =>
        t.post('/messes', messSetup({ messName: `Girls Mess ${n}`, slug: 'girls' }), { token: admin }),
      ),
    );
    expect(race.map((r) => r.status).sort()).toEqual([201, 409]);
    const sameName = await t.post('/messes', messSetup({ messName: 'hostel 7 MESS', slug: 'h7' }), {
      token: admin,
    });
    expect(sameName.status).toBe(409);

    const list = (await t.get('/messes')).body.messes.map((m: { slug: string }) => m.slug);
    expect(list).toEqual(['main', expect.stringMatching(/^girls$/), 'hostel-7']);
  });

  it('names every bad field in one 400: repeated bands and start months beside the field rules', async () => {
    const rebateBands = [
      { minDays: 3, percent: 50 },
      { minDays: 3, percent: 60 },
    ];
    const body = messSetup({
      slug: 'Bad Slug',
      email: 'not-an-email',
      chargeMethod: 'daily',
      rebateBands,
      termStartMonths: [4, 4],
    });
    body.mealTimes = [
      { name: 'Lunch', startTime: '14:00', endTime: '12:00' },
      { name: ' lunch', startTime: '19:00', endTime: '21:00' },
    ];
    const res = await t.post('/messes', body, { token: admin });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'dailyRate',
      'email',
      'mealTimes.0.endTime',
      'mealTimes.1.name',
      'rebateBands.1.minDays',
      'slug',
      'termStartMonths.1',
    ]);
    expect(res.body.details).toEqual(
      expect.arrayContaining([
        { field: 'rebateBands.1.minDays', message: 'minDays 3 is repeated' },
        { field: 'termStartMonths.1', message: 'month 4 is repeated' },
        { field: 'mealTimes.1.name', message: 'meal name "lunch" is repeated' },
      ]),
    );
    // A field its own rules refuse is not checked again: one entry for the band, none for the months.
    const refused = await t.post(
      '/messes',
      messSetup({
        slug: 'fine-slug',
        rebateBands: [
          { minDays: 3, percent: 50 },
          { minDays: 3, percent: 101 },
        ],
        termStartMonths: [4, 4, 13],
      }),
      { token: admin },
    );
    expect(refused.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'rebateBands.1.minDays',
      'rebateBands.1.percent',
      'termStartMonths',
    ]);
    expect((await t.get('/messes')).body.messes.map((m: { slug: string }) => m.slug)).not.toContain(
      'fine-slug',
    );
    // PATCH too: a bad field and a repeated band in one 400.
    const patch = await t.patch(
      '/auth/admin/config',
      { rebateDaysPerTerm: -1, rebateBands },
      { token: admin },
    );
    expect(patch.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'rebateBands.1.minDays',
      'rebateDaysPerTerm',
    ]);
  });

  it('holds slug and UPI fields to the spec wherever they are set: POST /messes, setup, PUT and PATCH config', async () => {
    type Body = Record<string, unknown>;
    const routes: [string, (body: Body) => Promise<{ status: number; body: { details?: unknown } }>][] = [
      [
        'POST /messes',
        (body) => t.post('/messes', messSetup({ slug: 'ok-slug', ...body }), { token: admin }),
      ],
      ['setup', (body) => t.post('/auth/admin/setup', messSetup(body), { token: admin })],
      ['PUT config', (body) => t.put('/auth/admin/config', messSetup(body), { token: admin })],
      ['PATCH config', (body) => t.patch('/auth/admin/config', body, { token: admin })],
    ];
    const cases: [Body, string][] = [
      [{ slug: 'a' }, 'slug'], // slugs are 2–40 characters
      [{ slug: 'a'.repeat(41) }, 'slug'],
      [{ upi: { vpa: 'hostel7@1bank', payeeName: 'Hostel 7' } }, 'upi.vpa'], // the handle is letters
      [{ upi: { vpa: 'hostel7@ok1', payeeName: 'Hostel 7' } }, 'upi.vpa'],
      [{ upi: { vpa: 'hostel7@okaxis', payeeName: 'x'.repeat(51) } }, 'upi.payeeName'], // 1–50 characters
    ];
    const answers = [];
    const expected = [];
    for (const [route, send] of routes)
      for (const [body, field] of cases) {
        const res = await send(body);
        answers.push({ route, body, status: res.status, details: res.body.details });
        expected.push({ route, body, status: 400, details: [{ field, message: expect.any(String) }] });
      }
    expect(answers).toEqual(expected);
    // The bounds themselves are accepted.
    const upi = { vpa: 'ab@okaxis', payeeName: 'x'.repeat(50) };
    const edge = await t.post('/messes', messSetup({ messName: 'Edge Mess', slug: 'ab', upi }), {
      token: admin,
    });
    expect(edge.status).toBe(201);
    expect(edge.body.mess).toMatchObject({ slug: 'ab', upi });
    expect(
      (await t.patch('/auth/admin/config?mess=ab', { slug: 'b'.repeat(40) }, { token: admin })).status,
    ).toBe(200);
  });

  it("keeps each mess's records to itself: lists, ids, and a query without a mess filter", async () => {
    const h7 = (await t.get('/messes/hostel-7')).body.mess._id as string;
    const mainManager = await t.member('manager');
    const h7Manager = await t.member('manager', { messId: h7 });

    const ours = await t.post(
      '/expenses',
      { category: 'Gas', amount: 1200.5, description: 'cylinder', date: today() },
      { token: h7Manager.token },
    );
    expect(ours.status).toBe(201);
    const theirs = await t.post(
      '/expenses',
      { category: 'Gas', amount: 99, description: 'main gas', date: today() },
      { token: mainManager.token },
    );
    expect(theirs.status).toBe(201);

    const h7List = await t.get('/expenses', { token: h7Manager.token });
    expect(h7List.body.expenses.map((e: { _id: string }) => e._id)).toEqual([ours.body.expense._id]);
    const mainList = await t.get('/expenses', { token: mainManager.token });
    expect(mainList.body.expenses.map((e: { _id: string }) => e._id)).toEqual([theirs.body.expense._id]);

    // Another mess's record is not there: 404, and unchanged.
    expect((await t.get(`/expenses/${ours.body.expense._id}`, { token: mainManager.token })).status).toBe(
      404,
    );
    expect((await t.delete(`/expenses/${ours.body.expense._id}`, { token: mainManager.token })).status).toBe(
      404,
    );
    // Naming another mess: 403 for its staff, allowed for an admin; an unknown mess is 404.
    expect((await t.get('/expenses?mess=hostel-7', { token: mainManager.token })).status).toBe(403);
    const asAdmin = await t.get('/expenses?mess=hostel-7', { token: admin });
    expect(asAdmin.body.expenses.map((e: { _id: string }) => e._id)).toEqual([ours.body.expense._id]);
    expect(await t.get('/expenses?mess=nowhere', { token: admin })).toMatchObject({
      status: 404,
      body: { error: 'Mess not found' },
    });

    // Row-level security: a statement that names no mess sees the rows of the mess it runs for, only.
    const db = t.app.get(Database).db;
    const ids = async (messId: string) =>
      inMess(messId, async () => {
        const result = await db.execute(sql`select id from expenses`);
        const rows = (result as { rows?: { id: string }[] }).rows ?? (result as unknown as { id: string }[]);
        return rows.map((r) => r.id);
      });
    expect(await ids(h7)).toEqual([ours.body.expense._id]);
    expect(await ids(FIRST_MESS_ID)).toEqual([theirs.body.expense._id]);
    // …and cannot write a row into another mess.
    await expect(
      inMess(FIRST_MESS_ID, () =>
        db.execute(
          sql`insert into expenses (mess_id, category, amount_paise, description, date, recorded_by)
              values (${h7}, 'Gas', 100, 'smuggled', ${today()}, ${mainManager.id})`,
        ),
      ),
    ).rejects.toMatchObject({ cause: expect.objectContaining({ code: '42501' }) });
  });

  it("lists in a mess's dues its own members only: users, not under row-level security, named by mess", async () => {
    const h7 = (await t.get('/messes/hostel-7')).body.mess._id as string;
    const mainTreasurer = await t.member('treasurer');
    const h7Treasurer = await t.member('treasurer', { messId: h7 });
    const h7Student = await t.member('student', { messId: h7 });
    const listed = async (token: string) =>
      ((await t.get('/accounts?limit=100', { token })).body.accounts as { userId: { _id: string } }[]).map(
        (r) => r.userId._id,
      );
    const h7Listed = await listed(h7Treasurer.token);
    expect(h7Listed).toEqual(expect.arrayContaining([h7Treasurer.id, h7Student.id]));
    expect(h7Listed).not.toContain(mainTreasurer.id);
    const mainListed = await listed(mainTreasurer.token);
    expect(mainListed).toContain(mainTreasurer.id);
    expect(mainListed).not.toContain(h7Student.id);
    expect(mainListed).not.toContain(h7Treasurer.id);
  });

  it('configures each mess on its own: the config of one is not the other', async () => {
    const h7Config = await t.get('/auth/admin/config?mess=hostel-7');
    expect(h7Config.body.config).toMatchObject({ messName: 'Hostel 7 Mess', slug: 'hostel-7', capacity: 2 });
    const changed = await t.put(
      '/auth/admin/config?mess=hostel-7',
      messSetup({ messName: 'Hostel 7 Mess', expenseCategories: ['Gas', 'Milk'] }),
      { token: admin },
    );
    expect(changed.status).toBe(200);
    expect((await t.get('/auth/admin/config?mess=hostel-7')).body.config.expenseCategories).toEqual([
      'Gas',
      'Milk',
    ]);
    expect((await t.get('/auth/admin/config')).body.config.messName).toBe('Central Mess');
    expect((await t.get('/auth/admin/config')).body.config.expenseCategories).not.toContain('Milk');
  });
});
