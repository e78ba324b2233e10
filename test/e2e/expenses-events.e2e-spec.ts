import { EventEmitter2 } from '@nestjs/event-emitter';
import { eq } from 'drizzle-orm';
import type { ExpenseEvent } from '../../src/common/events/event-map';
import { Database } from '../../src/database/database';
import { ExpensesQueries } from '../../src/modules/expenses/expenses.queries';
import { expenses } from '../../src/modules/expenses/expenses.schema';
import { TestApp } from '../support/app';
import { type Member, recordExpense, startExpensesApp, UNKNOWN_ID } from '../support/expenses';

/** The domain events expenses publish and the read-only aggregate queries other modules use. */
describe('Expenses: events and queries', () => {
  let t: TestApp;
  let admin: string;
  let adminId: string;
  let manager: Member;
  let otherManager: Member;
  let treasurer: Member;

  beforeAll(async () => {
    ({ t, admin, adminId, manager, otherManager, treasurer } = await startExpensesApp());
  });
  afterAll(() => t?.close());

  const record = (token: string, body: Record<string, unknown>) => recordExpense(t, token, body);

  it('answers the read-only aggregate queries other modules use, exactly, in paise', async () => {
    // 2034 is this test's alone
    const rows: [string, number, string][] = [
      ['Dairy', 0.1, '2034-01-01'],
      ['Dairy', 0.2, '2034-01-31'],
      ['Gas', 1000.05, '2034-01-15'],
      ['Gas', 0.7, '2034-03-01'],
    ];
    for (const [category, amount, date] of rows) await record(treasurer.token, { category, amount, date });
    const queries = t.app.get(ExpensesQueries);
    expect(await queries.monthTotal('2034-01')).toBe(100035);
    expect(await queries.monthTotal('2034-02')).toBe(0);
    expect(await queries.totalsByMonth('2034-01-01', '2034-12-31')).toEqual([
      { month: '2034-01', totalPaise: 100035 },
      { month: '2034-03', totalPaise: 70 },
    ]);
    expect(await queries.categoryTotals('2034-01-02', '2034-03-01')).toEqual([
      { category: 'Dairy', totalPaise: 20 },
      { category: 'Gas', totalPaise: 100075 },
    ]);
  });

  describe('domain events', () => {
    let emitter: EventEmitter2;
    const received: { name: string; payload: ExpenseEvent; committed: Promise<unknown> }[] = [];
    const listeners: [string, (payload: ExpenseEvent) => void][] = [];

    beforeAll(() => {
      emitter = t.app.get(EventEmitter2);
      const { db } = t.app.get(Database);
      for (const name of ['expense.recorded', 'expense.changed', 'expense.deleted']) {
        // Reads the row as the listener sees it at emission: what has been committed by then.
        const listener = (payload: ExpenseEvent) => {
          received.push({
            name,
            payload,
            committed: db.select().from(expenses).where(eq(expenses.id, payload.expenseId)).execute(),
          });
        };
        emitter.on(name, listener);
        listeners.push([name, listener]);
      }
    });
    afterAll(() => listeners.forEach(([name, listener]) => emitter.off(name, listener)));
    beforeEach(() => {
      received.length = 0;
    });

    it('publishes recorded, changed (naming both months) and deleted, each after its write committed', async () => {
      const created = await record(manager.token, { category: 'Gas', amount: 450.5, date: '2033-03-31' });
      expect(received.map((r) => r.name)).toEqual(['expense.recorded']);
      expect(received[0].payload).toEqual({
        expenseId: created._id,
        months: ['2033-03'],
        date: '2033-03-31',
        category: 'Gas',
        amountPaise: 45050,
        recordedBy: manager.id,
        actorId: manager.id,
      });
      expect(await received[0].committed).toEqual([expect.objectContaining({ amountPaise: 45050 })]);

      const moved = await t.put(
        `/expenses/${created._id}`,
        { category: 'Gas', amount: 460, date: '2033-04-01' },
        { token: admin },
      );
      expect(moved.status).toBe(200);
      expect(received.map((r) => r.name)).toEqual(['expense.recorded', 'expense.changed']);
      expect(received[1].payload).toEqual({
        expenseId: created._id,
        months: ['2033-03', '2033-04'],
        date: '2033-04-01',
        category: 'Gas',
        amountPaise: 46000,
        recordedBy: manager.id,
        actorId: adminId,
      });
      expect(await received[1].committed).toEqual([
        expect.objectContaining({ amountPaise: 46000, date: '2033-04-01' }),
      ]);

      expect((await t.delete(`/expenses/${created._id}`, { token: manager.token })).status).toBe(200);
      expect(received[2].name).toBe('expense.deleted');
      expect(received[2].payload).toMatchObject({
        expenseId: created._id,
        months: ['2033-04'],
        amountPaise: 46000,
      });
      expect(await received[2].committed).toEqual([]);
    });

    it('publishes nothing for a refused write', async () => {
      const kept = await record(manager.token, { category: 'Gas', amount: 1, date: '2033-05-01' });
      received.length = 0;
      await t.post(
        '/expenses',
        { category: 'Other', amount: 1, date: '2033-05-01' },
        { token: manager.token },
      );
      await t.put(
        `/expenses/${kept._id}`,
        { category: 'Gas', amount: 2, date: '2033-05-01' },
        {
          token: otherManager.token,
        },
      );
      await t.delete(`/expenses/${UNKNOWN_ID}`, { token: admin });
      expect(received).toEqual([]);
    });
  });
});
