import { localParts } from '../../src/common/time/dates';
import { messSetup, TestApp } from '../support/app';

const valid = {
  messName: 'Hostel 7 Mess',
  description: 'Veg mess',
  email: 'mess@college.edu',
  phone: '+91-8012345678',
  expenseCategories: ['Groceries', 'Gas', 'Staff'],
  mealTimes: [
    { name: 'Breakfast', startTime: '07:30', endTime: '09:30' },
    { name: 'Lunch', startTime: '12:30', endTime: '14:30' },
    { name: 'Snacks', startTime: '17:00', endTime: '18:00' },
    { name: 'Dinner', startTime: '19:30', endTime: '21:30' },
  ],
  monthlyBudget: 150000,
};

describe('Mess configuration', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.adminToken();
  });
  afterAll(() => t?.close());

  it('serves the defaults publicly before setup', async () => {
    const res = await t.get('/auth/admin/config');
    expect(res.status).toBe(200);
    expect(res.body.config.configured).toBe(false);
    expect(res.body.config.mealTimes.map((m: { name: string }) => m.name)).toEqual([
      'Breakfast',
      'Lunch',
      'Dinner',
    ]);
  });

  it("tells clients the mess's time zone and its date now, not UTC's", async () => {
    const before = localParts(new Date(), 'Asia/Kolkata').date;
    const res = await t.get('/auth/admin/config');
    const after = localParts(new Date(), 'Asia/Kolkata').date;
    expect(res.body.config.timezone).toBe('Asia/Kolkata');
    expect([before, after]).toContain(res.body.config.today);
  });

  it('refuses setup to anyone but an admin', async () => {
    expect((await t.post('/auth/admin/setup', valid)).body).toEqual({ error: 'No token' });
    const manager = await t.member('manager');
    const res = await t.post('/auth/admin/setup', valid, { token: manager.token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'Forbidden' });
  });

  it.each([
    ['no messName', { ...valid, messName: undefined }, 'messName'],
    ['no meal times', { ...valid, mealTimes: [] }, 'mealTimes'],
    ['no categories', { ...valid, expenseCategories: [] }, 'expenseCategories'],
    [
      'a time that is not HH:MM',
      { ...valid, mealTimes: [{ name: 'Lunch', startTime: '7:30', endTime: '09:30' }] },
      'mealTimes.0.startTime',
    ],
    [
      'a time past 23:59',
      { ...valid, mealTimes: [{ name: 'Lunch', startTime: '23:00', endTime: '24:00' }] },
      'mealTimes.0.endTime',
    ],
    [
      'an end before its start',
      { ...valid, mealTimes: [{ name: 'Lunch', startTime: '14:00', endTime: '12:00' }] },
      'mealTimes.0.endTime',
    ],
    [
      'a repeated meal name',
      { ...valid, mealTimes: [valid.mealTimes[0], { ...valid.mealTimes[1], name: 'breakfast' }] },
      'mealTimes.1.name',
    ],
    ['a repeated category', { ...valid, expenseCategories: ['Gas', 'gas'] }, 'expenseCategories.1'],
    ['a bad email', { ...valid, email: 'mess' }, 'email'],
    ['an unknown field', { ...valid, currency: 'INR' }, 'currency'],
    ['a negative budget', { ...valid, monthlyBudget: -1 }, 'monthlyBudget'],
    ['a null budget', { ...valid, monthlyBudget: null }, 'monthlyBudget'],
    ['a null description', { ...valid, description: null }, 'description'],
    ['a NUL in the name', { ...valid, messName: 'Hostel\u00007' }, 'messName'],
    ['a NUL in a category', { ...valid, expenseCategories: ['Gas', 'Veg\u0000'] }, 'expenseCategories'],
    ['a landline-style phone', { ...valid, phone: '080 2345 6789' }, 'phone'],
    ['a foreign phone', { ...valid, phone: '+1-5551234567' }, 'phone'],
  ])('400 for %s, and nothing is saved', async (_case, body, field) => {
    const res = await t.post('/auth/admin/setup', body, { token: admin });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Validation failed');
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    expect((await t.get('/auth/admin/config')).body.config.configured).toBe(false);
  });

  it('is set up once; concurrent second attempts are 409 too', async () => {
    const results = await Promise.all([
      t.post('/auth/admin/setup', valid, { token: admin }),
      t.post('/auth/admin/setup', { ...valid, messName: 'Other' }, { token: admin }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const saved = results.find((r) => r.status === 200)!.body.config;
    expect(saved).toMatchObject({
      ...valid,
      phone: '+918012345678',
      messName: saved.messName,
      configured: true,
      _id: expect.any(String),
    });
    const read = await t.get('/auth/admin/config');
    expect(read.body.config).toMatchObject({
      messName: saved.messName,
      description: 'Veg mess',
      email: 'mess@college.edu',
      phone: '+918012345678',
      expenseCategories: valid.expenseCategories,
      mealTimes: valid.mealTimes,
      monthlyBudget: 150000,
    });
  });

  it('says each missing field is required, all of them in one 400', async () => {
    const res = await t.post('/auth/admin/setup', {}, { token: admin });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: 'Validation failed',
      details: ['messName', 'email', 'phone', 'expenseCategories', 'mealTimes'].map((field) => ({
        field,
        message: `${field} is required`,
      })),
    });
    const nested = await t.post(
      '/auth/admin/setup',
      { ...valid, mealTimes: [{ name: 'Lunch' }] },
      { token: admin },
    );
    expect(nested.body.details).toEqual([
      { field: 'mealTimes.0.startTime', message: 'mealTimes.0.startTime is required' },
      { field: 'mealTimes.0.endTime', message: 'mealTimes.0.endTime is required' },
    ]);
  });

  it('says why a null optional field is refused', async () => {
    const res = await t.post('/auth/admin/setup', { ...valid, monthlyBudget: null }, { token: admin });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      { field: 'monthlyBudget', message: 'monthlyBudget must not be null; leave it out instead' },
    ]);
  });

  it('normalizes the contact phone like every phone: +91-XXXXXXXXXX or 10 digits in, +91XXXXXXXXXX out', async () => {
    const res = await t.put('/auth/admin/config', { ...valid, phone: '8012345679' }, { token: admin });
    expect(res.status).toBe(200);
    expect(res.body.config.phone).toBe('+918012345679');
    expect((await t.get('/auth/admin/config')).body.config.phone).toBe('+918012345679');
  });

  it('keeps line breaks in the description, and refuses other control characters', async () => {
    const ok = await t.put(
      '/auth/admin/config',
      { ...valid, description: 'Veg\nNo onions' },
      { token: admin },
    );
    expect(ok.status).toBe(200);
    expect(ok.body.config.description).toBe('Veg\nNo onions');
    const bad = await t.put('/auth/admin/config', { ...valid, description: 'Veg\u0007' }, { token: admin });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([
      {
        field: 'description',
        message: 'description must not contain control characters other than tab and line breaks',
      },
    ]);
  });

  it('can be replaced by an admin afterwards', async () => {
    const res = await t.put('/auth/admin/config', { ...valid, messName: 'Renamed Mess' }, { token: admin });
    expect(res.status).toBe(200);
    expect((await t.get('/auth/admin/config')).body.config.messName).toBe('Renamed Mess');
  });

  it('takes back what GET returned (read-only fields ignored) and changes only what a PATCH sends', async () => {
    const read = (await t.get('/auth/admin/config')).body.config;
    const echoed = await t.put('/auth/admin/config', read, { token: admin });
    expect(echoed.status).toBe(200);
    const { updatedAt: _u, today: _t, timezone: _z, ...same } = read;
    expect(echoed.body.config).toMatchObject({ ...same, updatedAt: expect.any(String) });

    const budgeted = await t.patch('/auth/admin/config', { monthlyBudget: 90000 }, { token: admin });
    expect(budgeted.status).toBe(200);
    const patched = await t.patch(
      '/auth/admin/config',
      { description: 'Now with millets' },
      { token: admin },
    );
    expect(patched.body.config).toMatchObject({
      description: 'Now with millets',
      monthlyBudget: 90000,
      messName: read.messName,
      mealTimes: read.mealTimes,
    });
    const cleared = await t.patch('/auth/admin/config', { monthlyBudget: null }, { token: admin });
    expect(cleared.body.config.monthlyBudget).toBeNull();
    expect(cleared.body.config.description).toBe('Now with millets');

    const bad = await t.patch(
      '/auth/admin/config',
      { messName: null, expenseCategories: [] },
      { token: admin },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['expenseCategories']);
    const nulls = await t.patch('/auth/admin/config', { messName: null }, { token: admin });
    expect(nulls.status).toBe(400);
    expect(nulls.body.details).toEqual([
      { field: 'messName', message: 'messName must not be null; leave it out to keep it' },
    ]);
    expect((await t.get('/auth/admin/config')).body.config.messName).toBe(read.messName);
    const student = await t.member('student');
    expect((await t.patch('/auth/admin/config', { description: 'x' }, { token: student.token })).status).toBe(
      403,
    );
  });

  it("lets a treasurer set their own mess's UPI id, and nothing else (403)", async () => {
    const treasurer = await t.member('treasurer');
    const manager = await t.member('manager');
    const before = (await t.get('/auth/admin/config')).body.config;
    const upi = { vpa: 'hostel7.mess@okbank', payeeName: 'Hostel 7 Mess' };
    const set = await t.patch('/auth/admin/config', { upi }, { token: treasurer.token });
    expect(set.status).toBe(200);
    expect(set.body.config).toMatchObject({ upi, messName: before.messName, mealTimes: before.mealTimes });
    // what GET returned may be sent back with it: the read-only fields are ignored
    const { _id, configured, createdBy, createdAt, updatedAt, timezone, today } = before;
    const readOnly = { _id, configured, createdBy, createdAt, updatedAt, timezone, today };
    const changed = { vpa: 'hostel7.accounts@okbank', payeeName: 'Hostel 7 Accounts' };
    const echoed = await t.patch(
      '/auth/admin/config',
      { ...readOnly, upi: changed },
      { token: treasurer.token },
    );
    expect([echoed.status, echoed.body.config?.upi]).toEqual([200, changed]);
    // any other field is an admin's, alone or beside upi: 403 and nothing changes
    for (const body of [{ description: 'x' }, { upi, monthlyBudget: 1 }, { capacity: null }]) {
      const refused = await t.patch('/auth/admin/config', body, { token: treasurer.token });
      expect([refused.status, refused.body]).toEqual([403, { error: 'Forbidden' }]);
    }
    expect((await t.put('/auth/admin/config', { ...valid, upi }, { token: treasurer.token })).status).toBe(
      403,
    );
    expect((await t.patch('/auth/admin/config', { upi }, { token: manager.token })).status).toBe(403);
    const after = (await t.get('/auth/admin/config')).body.config;
    expect(after).toMatchObject({ upi: changed, description: before.description, capacity: before.capacity });
    // their own mess's only: naming another mess is 403
    const beta = await t.post('/messes', messSetup({ messName: 'Beta', slug: 'beta' }), { token: admin });
    expect(beta.status).toBe(201);
    expect((await t.patch('/auth/admin/config?mess=beta', { upi }, { token: treasurer.token })).status).toBe(
      403,
    );
    expect((await t.get('/auth/admin/config?mess=beta')).body.config.upi).toBeNull();
    // and removing it is theirs too
    const removed = await t.patch('/auth/admin/config', { upi: null }, { token: treasurer.token });
    expect([removed.status, removed.body.config?.upi]).toEqual([200, null]);
  });
});

describe('Money in exponent form', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start();
  });
  afterAll(() => t?.close());

  // class-validator's IsNumber({maxDecimalPlaces}) threw on a number JSON writes with an exponent (found by the
  // fuzzer: a 500); such a number is judged by its value like any other.
  it('answers a budget or a price like 1e-7 with a 400, never a 500', async () => {
    const admin = await t.adminToken();
    const budget = await t.post('/auth/admin/setup', messSetup({ monthlyBudget: 1e-7 }), { token: admin });
    expect(budget.status).toBe(400);
    expect(budget.body.details).toContainEqual({
      field: 'monthlyBudget',
      message: 'monthlyBudget must have at most two decimals (whole paise)',
    });
    const tiny = await t.post('/auth/admin/setup', messSetup({ monthlyBudget: 1e-320 }), { token: admin });
    expect(tiny.status).not.toBe(500);
    const price = await t.post(
      '/auth/admin/setup',
      messSetup({ extraItems: [{ name: 'Egg', price: 1.5e-5 }] }),
      { token: admin },
    );
    expect(price.status).toBe(400);
  });
});
