import { EventEmitter2 } from '@nestjs/event-emitter';
import { TestApp } from '../support/app';
import {
  countExpenses,
  ISO,
  type Member,
  recordExpense,
  startExpensesApp,
  UNKNOWN_ID,
} from '../support/expenses';
import { fixClock } from '../support/notifications';

const ist = (date: string, time: string) => new Date(`${date}T${time}:00+05:30`);
/** Every date this file records is before the end of the month after this instant. */
const NOW = ist('2033-06-20', '12:00');

/**
 * Recording, reading, listing, replacing and deleting expenses, who may do which, and bad input (the events their
 * writes publish and the queries other modules read: test/medium/specs/expenses.medium-spec.ts).
 */
describe('Expenses: recorded by managers and treasurers, changed by their recorder or an admin', () => {
  let t: TestApp;
  let admin: string;
  let adminId: string;
  let manager: Member;
  let otherManager: Member;
  let treasurer: Member;
  let student: Member;

  beforeAll(async () => {
    ({ t, admin, adminId, manager, otherManager, treasurer, student } = await startExpensesApp({
      MESS_TIMEZONE: 'Asia/Kolkata',
    }));
    fixClock(t, NOW);
  });
  afterAll(() => t?.close());

  const record = (token: string, body: Record<string, unknown>) => recordExpense(t, token, body);
  const countAll = () => countExpenses(t, admin);

  it('walks the contract: record, read, list, replace, delete', async () => {
    const created = await t.post(
      '/expenses',
      { category: 'Vegetables', amount: 1250.5, description: '  Onions and tomatoes ', date: '2025-03-14' },
      { token: manager.token },
    );
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      success: true,
      expense: {
        _id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        category: 'Vegetables',
        amount: 1250.5,
        description: 'Onions and tomatoes',
        date: '2025-03-14',
        recordedBy: { _id: manager.id, fullName: 'Meera Nair' },
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      },
    });
    const expense = created.body.expense;

    // anyone signed in reads it, with the recorder nested
    const read = await t.get(`/expenses/${expense._id}`, { token: student.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ success: true, expense });

    const list = await t.get('/expenses?startDate=2025-03-14&endDate=2025-03-14', { token: student.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      success: true,
      expenses: [expense],
      pagination: { page: 1, limit: 10, total: 1 },
      totalAmount: 1250.5,
    });

    // the recorder replaces all four fields; an omitted description becomes empty
    const replaced = await t.put(
      `/expenses/${expense._id}`,
      { category: 'Gas', amount: 980, date: '2025-03-15' },
      { token: manager.token },
    );
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual({
      success: true,
      expense: {
        ...expense,
        category: 'Gas',
        amount: 980,
        description: '',
        date: '2025-03-15',
        updatedAt: expect.stringMatching(ISO),
      },
    });
    expect(Date.parse(replaced.body.expense.updatedAt)).toBeGreaterThanOrEqual(Date.parse(expense.updatedAt));
    expect((await t.get(`/expenses/${expense._id}`, { token: student.token })).body.expense).toEqual(
      replaced.body.expense,
    );

    const deleted = await t.delete(`/expenses/${expense._id}`, { token: manager.token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true, message: 'Expense deleted' });
    const gone = await t.get(`/expenses/${expense._id}`, { token: manager.token });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ success: false, error: 'Expense not found' });
    expect((await t.delete(`/expenses/${expense._id}`, { token: manager.token })).status).toBe(404);
  });

  describe('guards', () => {
    let expenseId: string;
    beforeAll(async () => {
      expenseId = (await record(manager.token, { category: 'Gas', amount: 10, date: '2025-01-01' }))._id;
    });

    it('401 No token on every endpoint', async () => {
      const body = { category: 'Gas', amount: 1, date: '2025-01-01' };
      for (const res of [
        await t.get('/expenses'),
        await t.post('/expenses', body),
        await t.get(`/expenses/${expenseId}`),
        await t.put(`/expenses/${expenseId}`, body),
        await t.delete(`/expenses/${expenseId}`),
      ]) {
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'No token' });
      }
      const invalid = await t.get('/expenses', { token: 'not-a-token' });
      expect([invalid.status, invalid.body]).toEqual([401, { error: 'Invalid token' }]);
    });

    it('lets managers, treasurers and the admin record, and refuses a student with 403 Forbidden', async () => {
      const before = await countAll();
      const body = { category: 'Dairy', amount: 42, date: '2025-01-02' };
      const refused = await t.post('/expenses', body, { token: student.token });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ error: 'Forbidden' });
      expect(await countAll()).toBe(before);

      const byTreasurer = await record(treasurer.token, body);
      expect(byTreasurer.recordedBy).toEqual({ _id: treasurer.id, fullName: 'Ravi Kumar' });
      const byAdmin = await record(admin, body);
      expect(byAdmin.recordedBy).toEqual({ _id: adminId, fullName: 'Mess Admin' });
      expect(await countAll()).toBe(before + 2);
    });
  });

  describe('ownership', () => {
    it("refuses another manager's or a treasurer's change with 403 and leaves the expense as it was", async () => {
      const mine = await record(manager.token, {
        category: 'Staff',
        amount: 5000,
        description: 'Cook',
        date: '2025-02-01',
      });
      const change = { category: 'Gas', amount: 1, date: '2025-02-02' };
      for (const token of [otherManager.token, treasurer.token, student.token]) {
        const put = await t.put(`/expenses/${mine._id}`, change, { token });
        expect(put.status).toBe(403);
        expect(put.body).toEqual({ success: false, error: 'You can only change your own expenses' });
        const del = await t.delete(`/expenses/${mine._id}`, { token });
        expect(del.status).toBe(403);
        expect(del.body).toEqual({ success: false, error: 'You can only change your own expenses' });
      }
      expect((await t.get(`/expenses/${mine._id}`, { token: admin })).body.expense).toEqual(mine);
    });

    it('refuses a recorder who has since been demoted to student, and lets them again once re-promoted', async () => {
      const recorder = await t.member('treasurer');
      const theirs = await record(recorder.token, { category: 'Gas', amount: 900, date: '2025-02-04' });
      expect((await t.put(`/users/${recorder.id}/role`, { role: 'student' }, { token: admin })).status).toBe(
        200,
      );
      const change = { category: 'Gas', amount: 1, date: '2025-02-04' };
      const refused = {
        success: false,
        error: 'Only a manager or treasurer can change the expenses they recorded',
      };
      const put = await t.put(`/expenses/${theirs._id}`, change, { token: recorder.token });
      expect([put.status, put.body]).toEqual([403, refused]);
      const del = await t.delete(`/expenses/${theirs._id}`, { token: recorder.token });
      expect([del.status, del.body]).toEqual([403, refused]);
      expect((await t.get(`/expenses/${theirs._id}`, { token: admin })).body.expense).toEqual(theirs);

      // a recorder moved to the other recording role keeps their records
      expect((await t.put(`/users/${recorder.id}/role`, { role: 'manager' }, { token: admin })).status).toBe(
        200,
      );
      expect((await t.put(`/expenses/${theirs._id}`, change, { token: recorder.token })).status).toBe(200);
    });

    it('lets the admin change and delete anyone’s expense, keeping the recorder', async () => {
      const theirs = await record(treasurer.token, { category: 'Dairy', amount: 300, date: '2025-02-03' });
      const put = await t.put(
        `/expenses/${theirs._id}`,
        { category: 'Dairy', amount: 310.25, description: 'Corrected by admin', date: '2025-02-03' },
        { token: admin },
      );
      expect(put.status).toBe(200);
      expect(put.body.expense).toMatchObject({
        amount: 310.25,
        description: 'Corrected by admin',
        recordedBy: { _id: treasurer.id, fullName: 'Ravi Kumar' },
      });
      const del = await t.delete(`/expenses/${theirs._id}`, { token: admin });
      expect([del.status, del.body]).toEqual([200, { success: true, message: 'Expense deleted' }]);
      expect((await t.get(`/expenses/${theirs._id}`, { token: admin })).status).toBe(404);
    });
  });

  describe('bad input changes nothing', () => {
    let kept: Record<string, unknown>;
    beforeAll(async () => {
      kept = await record(manager.token, {
        category: 'Groceries',
        amount: 99.99,
        description: 'Rice',
        date: '2025-02-10',
      });
    });

    const valid = { category: 'Groceries', amount: 12.5, description: 'Salt', date: '2025-02-11' };
    const cases: [string, Record<string, unknown>, string[]][] = [
      ['an unknown category', { ...valid, category: 'Other' }, ['category']],
      ['a category in the wrong case', { ...valid, category: 'groceries' }, ['category']],
      ['a zero amount', { ...valid, amount: 0 }, ['amount']],
      ['a negative amount', { ...valid, amount: -5 }, ['amount']],
      ['three decimals', { ...valid, amount: 10.005 }, ['amount']],
      ['an amount above the maximum', { ...valid, amount: 10_000_000.01 }, ['amount']],
      ['an amount as a string', { ...valid, amount: '12.50' }, ['amount']],
      ['an impossible date', { ...valid, date: '2025-02-30' }, ['date']],
      ['a date in another format', { ...valid, date: '11/02/2025' }, ['date']],
      ['a description too long', { ...valid, description: 'x'.repeat(501) }, ['description']],
      ['missing fields', { description: 'Salt' }, ['amount', 'category', 'date']],
      ['an unknown field', { ...valid, recordedBy: UNKNOWN_ID }, ['recordedBy']],
      // Every bad field at once, the configured-category check among them.
      [
        'a wrong-case category and three decimals',
        { ...valid, category: 'groceries', amount: 1.005 },
        ['amount', 'category'],
      ],
      [
        'an unknown category, a bad date and an unknown field',
        { ...valid, category: 'Other', date: '2025-13-01', x: 1 },
        ['category', 'date', 'x'],
      ],
    ];

    it('names the configured categories when the category is not one of them', async () => {
      const res = await t.post(
        '/expenses',
        { ...valid, category: 'groceries', amount: 1.005 },
        { token: manager.token },
      );
      expect(res.body.details).toContainEqual({
        field: 'category',
        message: expect.stringMatching(/^category must be one of .*Groceries/),
      });
    });

    it.each(cases)('POST with %s is 400', async (_case, body, fields) => {
      const before = await countAll();
      const res = await t.post('/expenses', body, { token: manager.token });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ success: false, error: 'Validation failed', details: expect.any(Array) });
      expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual(fields);
      expect(await countAll()).toBe(before);
    });

    it.each(cases)('PUT with %s is 400', async (_case, body, fields) => {
      const res = await t.put(`/expenses/${kept._id as string}`, body, { token: manager.token });
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual(fields);
      expect((await t.get(`/expenses/${kept._id as string}`, { token: manager.token })).body.expense).toEqual(
        kept,
      );
    });

    it('400 for a malformed id and 404 for an unknown one, on every route with an id', async () => {
      for (const res of [
        await t.get('/expenses/not-a-uuid', { token: manager.token }),
        await t.put('/expenses/not-a-uuid', valid, { token: manager.token }),
        await t.delete('/expenses/123', { token: manager.token }),
      ]) {
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ success: false, error: 'Invalid id: expected a UUID' });
      }
      for (const res of [
        await t.get(`/expenses/${UNKNOWN_ID}`, { token: manager.token }),
        await t.put(`/expenses/${UNKNOWN_ID}`, valid, { token: manager.token }),
        await t.delete(`/expenses/${UNKNOWN_ID}`, { token: admin }),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ success: false, error: 'Expense not found' });
      }
      expect((await t.get(`/expenses/${kept._id as string}`, { token: manager.token })).body.expense).toEqual(
        kept,
      );
    });

    it.each([
      ['limit above 100', 'limit=101', ['limit']],
      ['limit 0', 'limit=0', ['limit']],
      ['a page that is not a number', 'page=two', ['page']],
      ['an impossible startDate', 'startDate=2025-02-30', ['startDate']],
      ['a malformed endDate', 'endDate=2025-2-1', ['endDate']],
      ['startDate after endDate', 'startDate=2025-03-02&endDate=2025-03-01', ['endDate']],
      ['an unknown parameter', 'sort=amount', ['sort']],
    ])('GET with %s is 400', async (_case, query, fields) => {
      const res = await t.get(`/expenses?${query}`, { token: student.token });
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual(fields);
    });

    it('says a page or limit that is not a whole number must be an integer, not that it is out of range', async () => {
      for (const query of ['page=abc', 'page=1.5', 'limit=many']) {
        const res = await t.get(`/expenses?${query}`, { token: student.token });
        expect(res.status).toBe(400);
        expect(res.body.details).toEqual([
          { field: query.split('=')[0], message: `${query.split('=')[0]} must be an integer number` },
        ]);
      }
    });

    it('refuses null for the optional description and a NUL in it; keeps its line breaks', async () => {
      const body = { category: 'Gas', amount: 10, date: '2025-02-05' };
      const nulled = await t.post('/expenses', { ...body, description: null }, { token: manager.token });
      expect([nulled.status, nulled.body.details]).toEqual([
        400,
        [{ field: 'description', message: 'description must not be null; leave it out instead' }],
      ]);
      const nul = await t.post('/expenses', { ...body, description: 'a\u0000b' }, { token: manager.token });
      expect(nul.status).toBe(400);
      expect(nul.body.details[0].field).toBe('description');
      const lines = await t.post(
        '/expenses',
        { ...body, description: 'Cylinder\nRefill' },
        { token: manager.token },
      );
      expect(lines.status).toBe(201);
      expect(lines.body.expense.description).toBe('Cylinder\nRefill');
      expect((await t.delete(`/expenses/${lines.body.expense._id}`, { token: manager.token })).status).toBe(
        200,
      );
    });
  });

  describe('listing', () => {
    // Every expense of this block is dated 2031, so other tests' expenses stay out of its ranges.
    let ids: Record<string, string>;
    beforeAll(async () => {
      ids = {};
      const rows: [string, string, number, string, string][] = [
        ['jan-veg', 'Vegetables', 100, '2031-01-10', manager.token],
        ['jan-gas', 'Gas', 200, '2031-01-20', treasurer.token],
        ['feb-veg-1', 'Vegetables', 300.5, '2031-02-05', manager.token],
        ['feb-veg-2', 'Vegetables', 400.25, '2031-02-05', otherManager.token],
        ['feb-gas', 'Gas', 500, '2031-02-28', treasurer.token],
        ['mar-veg', 'Vegetables', 600, '2031-03-01', manager.token],
      ];
      for (const [key, category, amount, date, token] of rows) {
        ids[key] = (await record(token, { category, amount, date }))._id;
      }
    });

    it('lists newest first (date, then the later recording first), with recorders nested', async () => {
      const res = await t.get('/expenses?startDate=2031-01-01&endDate=2031-12-31', { token: student.token });
      expect(res.status).toBe(200);
      expect(res.body.expenses.map((e: { _id: string }) => e._id)).toEqual([
        ids['mar-veg'],
        ids['feb-gas'],
        ids['feb-veg-2'],
        ids['feb-veg-1'],
        ids['jan-gas'],
        ids['jan-veg'],
      ]);
      expect(res.body.expenses[2].recordedBy).toEqual({ _id: otherManager.id, fullName: 'Kiran Rao' });
      expect(res.body.expenses[1].recordedBy).toEqual({ _id: treasurer.id, fullName: 'Ravi Kumar' });
      expect(res.body.pagination).toEqual({ page: 1, limit: 10, total: 6 });
      expect(res.body.totalAmount).toBe(2100.75);
    });

    it('combines category, date range and paging; totals count every page', async () => {
      const query = 'category=Vegetables&startDate=2031-01-15&endDate=2031-03-01&limit=2';
      const first = await t.get(`/expenses?${query}`, { token: student.token });
      expect(first.status).toBe(200);
      expect(first.body.expenses.map((e: { _id: string }) => e._id)).toEqual([
        ids['mar-veg'],
        ids['feb-veg-2'],
      ]);
      expect(first.body.pagination).toEqual({ page: 1, limit: 2, total: 3 });
      expect(first.body.totalAmount).toBe(1300.75);

      const second = await t.get(`/expenses?${query}&page=2`, { token: student.token });
      expect(second.body.expenses.map((e: { _id: string }) => e._id)).toEqual([ids['feb-veg-1']]);
      expect(second.body.pagination).toEqual({ page: 2, limit: 2, total: 3 });

      const beyond = await t.get(`/expenses?${query}&page=9`, { token: student.token });
      expect(beyond.status).toBe(200);
      expect(beyond.body.expenses).toEqual([]);
      expect(beyond.body.pagination).toEqual({ page: 9, limit: 2, total: 3 });

      // inclusive bounds
      const edges = await t.get('/expenses?startDate=2031-02-05&endDate=2031-02-28&category=Gas', {
        token: student.token,
      });
      expect(edges.body.expenses.map((e: { _id: string }) => e._id)).toEqual([ids['feb-gas']]);
      // an unconfigured category is a filter that matches nothing, not an error
      const none = await t.get('/expenses?category=Fuel&startDate=2031-01-01', { token: student.token });
      expect([none.status, none.body.expenses, none.body.pagination.total, none.body.totalAmount]).toEqual([
        200,
        [],
        0,
        0,
      ]);
    });

    it('serves up to 100 per page', async () => {
      const res = await t.get('/expenses?limit=100', { token: student.token });
      expect(res.status).toBe(200);
      expect(res.body.pagination.limit).toBe(100);
      expect(res.body.expenses.length).toBe(Math.min(100, res.body.pagination.total));
    });
  });

  it('keeps money exact: 0.1 + 0.2 is 0.3', async () => {
    for (const amount of [0.1, 0.2]) {
      await record(treasurer.token, { category: 'Maintenance', amount, date: '2032-06-15' });
    }
    const res = await t.get('/expenses?category=Maintenance&startDate=2032-06-01&endDate=2032-06-30', {
      token: treasurer.token,
    });
    expect(res.body.expenses.map((e: { amount: number }) => e.amount).sort()).toEqual([0.1, 0.2]);
    expect(res.body.totalAmount).toBe(0.3);
    const paise = res.body.expenses.reduce(
      (sum: number, e: { amount: number }) => sum + Math.round(e.amount * 100),
      0,
    );
    expect(paise).toBe(30);

    const max = await record(treasurer.token, {
      category: 'Maintenance',
      amount: 10_000_000,
      date: '2032-07-01',
    });
    expect(max.amount).toBe(10_000_000);
  });

  describe('how far ahead an expense may be dated: the end of next month in the mess time zone', () => {
    afterEach(() => fixClock(t, NOW));
    const gas = { category: 'Gas', amount: 1450, description: 'Advance for the cylinders' };
    const tooFar = (latest: string) => ({
      success: false,
      error: 'Validation failed',
      details: [{ field: 'date', message: `date must not be after ${latest}, the end of next month` }],
    });

    it('takes an advance dated next month, and refuses a date after it on POST, naming the limit', async () => {
      expect((await t.post('/expenses', { ...gas, date: '2033-07-31' }, { token: manager.token })).status).toBe(
        201,
      );
      const before = await countAll();
      for (const date of ['2033-08-01', '2062-06-20']) {
        const res = await t.post('/expenses', { ...gas, date }, { token: manager.token });
        expect([res.status, res.body]).toEqual([400, tooFar('2033-07-31')]);
      }
      expect(await countAll()).toBe(before);
    });

    it('refuses it on PUT too, leaving the expense as it was, and names it beside other bad fields', async () => {
      const kept = await record(manager.token, { ...gas, date: '2033-06-19' });
      const moved = await t.put(`/expenses/${kept._id}`, { ...gas, date: '2062-06-19' }, { token: manager.token });
      expect([moved.status, moved.body]).toEqual([400, tooFar('2033-07-31')]);
      expect((await t.get(`/expenses/${kept._id}`, { token: manager.token })).body.expense).toEqual(kept);

      const both = await t.post('/expenses', { ...gas, amount: 0, date: '2062-06-20' }, { token: manager.token });
      expect(both.status).toBe(400);
      expect(both.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['amount', 'date']);
    });

    it("counts months in the mess's time zone: at 00:30 IST on 1 July (still 30 June in UTC) August is next", async () => {
      fixClock(t, ist('2033-07-01', '00:30'));
      expect((await t.post('/expenses', { ...gas, date: '2033-08-31' }, { token: manager.token })).status).toBe(
        201,
      );
      const res = await t.post('/expenses', { ...gas, date: '2033-09-01' }, { token: manager.token });
      expect([res.status, res.body]).toEqual([400, tooFar('2033-08-31')]);
    });
  });

  describe('domain events', () => {
    let emitter: EventEmitter2;
    beforeAll(() => {
      emitter = t.app.get(EventEmitter2);
    });

    it('answers 201 even when a listener fails, and the expense is kept', async () => {
      const failing = () => {
        throw new Error('listener down');
      };
      emitter.on('expense.recorded', failing);
      try {
        const res = await t.post(
          '/expenses',
          { category: 'Gas', amount: 7, date: '2033-06-01' },
          {
            token: manager.token,
          },
        );
        expect(res.status).toBe(201);
        expect((await t.get(`/expenses/${res.body.expense._id}`, { token: manager.token })).status).toBe(200);
      } finally {
        emitter.off('expense.recorded', failing);
      }
    });
  });
});
