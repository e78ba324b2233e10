import { TestApp } from '../support/app';
import { countExpenses, type Member, recordExpense, startExpensesApp, UNKNOWN_ID } from '../support/expenses';

/** Bad bodies, queries and ids are refused, naming the field, and change nothing. */
describe('Expenses: bad input', () => {
  let t: TestApp;
  let admin: string;
  let manager: Member;
  let student: Member;

  beforeAll(async () => {
    ({ t, admin, manager, student } = await startExpensesApp());
  });
  afterAll(() => t?.close());

  const record = (token: string, body: Record<string, unknown>) => recordExpense(t, token, body);
  const countAll = () => countExpenses(t, admin);

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
    ];

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
});
