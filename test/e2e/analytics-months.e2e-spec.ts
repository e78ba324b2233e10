import { TestApp } from '../support/app';
import { type Member, recordExpense, startExpensesApp } from '../support/expenses';

/**
 * GET /analytics/months lists the months with something to bill (an expense or an attendance mark) and every month
 * ever closed; not a month whose only expense was deleted, nor one merely looked at.
 */
describe('Months: a month is listed while it has a record, or once it has been closed', () => {
  let t: TestApp;
  let admin: string;
  let treasurer: Member;

  beforeAll(async () => {
    ({ t, admin, treasurer } = await startExpensesApp());
  });
  afterAll(() => t?.close());

  const listed = async (): Promise<string[]> => {
    const res = await t.get('/analytics/months?limit=100', { token: treasurer.token });
    expect(res.status).toBe(200);
    return res.body.months.map((m: { month: string }) => m.month);
  };
  const spend = (date: string) => recordExpense(t, treasurer.token, { category: 'Gas', amount: 450, date });
  const remove = async (id: string) =>
    expect((await t.delete(`/expenses/${id}`, { token: treasurer.token })).status).toBe(200);

  it('drops the month of a deleted expense that was its only record, at once', async () => {
    const expense = await spend('2024-07-10');
    expect(await listed()).toContain('2024-07');
    await remove(expense._id);
    expect(await listed()).not.toContain('2024-07');
  });

  it('keeps the month while another expense is in it', async () => {
    const [first] = [await spend('2024-08-01'), await spend('2024-08-31')];
    await remove(first._id);
    expect(await listed()).toContain('2024-08');
  });

  it('does not list a month only because its bill or figures were read', async () => {
    expect((await t.get('/analytics/shares?month=2024-05', { token: treasurer.token })).status).toBe(200);
    expect(await listed()).not.toContain('2024-05');
  });

  it('keeps a month that was closed and reopened, even once its expenses are gone', async () => {
    const expense = await spend('2024-03-10');
    const close = await t.post('/analytics/months/2024-03/close', undefined, { token: treasurer.token });
    expect(close.status).toBe(200);
    expect((await t.post('/analytics/months/2024-03/reopen', undefined, { token: admin })).status).toBe(200);
    await remove(expense._id);
    const res = await t.get('/analytics/months?limit=100', { token: treasurer.token });
    expect(res.body.months).toContainEqual({ month: '2024-03', closed: false, closedAt: null, closedBy: null });
  });
});
