import { eq } from 'drizzle-orm';
import { OutboxRelay } from '../../../src/modules/outbox';
import { ExpensesModule, ExpensesQueries } from '../../../src/modules/expenses';
import { ExpenseBodyDto, ListExpensesQuery } from '../../../src/modules/expenses/dto/expense.requests';
import { expenses } from '../../../src/modules/expenses/expenses.schema';
import { ExpensesService } from '../../../src/modules/expenses/expenses.service';
import { type MediumContext, type MediumMember, MESS_B_SETUP, newMedium } from '../medium.factory';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const CATEGORIES = ['Groceries', 'Vegetables', 'Dairy', 'Gas', 'Staff', 'Maintenance'];

/**
 * Expenses' internals, called directly: the domain events their writes publish (after commit, never for a refused
 * write) and the aggregate queries other modules use. What /expenses answers: test/e2e/expenses-*.
 */
describe('Expenses (medium)', () => {
  let ctx: MediumContext;
  let admin: MediumMember;
  let manager: MediumMember;
  let otherManager: MediumMember;
  let treasurer: MediumMember;

  beforeAll(async () => {
    // After every date the spec records: an expense may be dated at most to the end of next month.
    ctx = await newMedium({ imports: [ExpensesModule], now: new Date('2036-06-20T06:30:00Z') });
    admin = await ctx.newMember('admin', { fullName: 'Mess Admin' });
    manager = await ctx.newMember('manager', { fullName: 'Meera Nair' });
    otherManager = await ctx.newMember('manager', { fullName: 'Kiran Rao' });
    treasurer = await ctx.newMember('treasurer', { fullName: 'Ravi Kumar' });
    // The stored configuration decides the categories: 'Other' is a default category but not configured here.
    await ctx.setUpMess(admin, {
      expenseCategories: CATEGORIES,
      mealTimes: [{ name: 'Lunch', startTime: '12:30', endTime: '14:30' }],
    });
  });
  afterAll(() => ctx?.close());

  const service = () => ctx.get(ExpensesService);
  // The body is validated as the controller's pipe does in a request, in the request's mess: the configured
  // categories it checks are that mess's.
  const body = (given: object) => ctx.inMess(ctx.messId, () => ctx.dto(ExpenseBodyDto, given));
  const record = async (member: MediumMember, given: object) =>
    (await service().record(member.caller, await body(given))).expense;
  const replace = async (member: MediumMember, id: string, given: object) =>
    service().replace(member.caller, id, await body(given));

  it('answers the read-only aggregate queries other modules use, exactly, in paise', async () => {
    // 2034 is this test's alone
    const rows: [string, number, string][] = [
      ['Dairy', 0.1, '2034-01-01'],
      ['Dairy', 0.2, '2034-01-31'],
      ['Gas', 1000.05, '2034-01-15'],
      ['Gas', 0.7, '2034-03-01'],
    ];
    for (const [category, amount, date] of rows)
      await ctx.newExpense({ category, amount, date, recordedBy: treasurer.id });
    const queries = ctx.get(ExpensesQueries);
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
    let recording: ReturnType<typeof startRecording>;
    const startRecording = () =>
      // Reads the row as the listener sees it at emission, in the event's mess: what has been committed by then.
      ctx.recordEvents(['expense.recorded', 'expense.changed', 'expense.deleted'], (payload) =>
        ctx.inMess(payload.messId, () =>
          ctx.db.select().from(expenses).where(eq(expenses.id, payload.expenseId)).execute(),
        ),
      );
    beforeEach(() => {
      recording = startRecording();
    });
    afterEach(() => recording.stop());

    it('publishes recorded, changed (naming both months) and deleted, each after its write committed', async () => {
      const { received } = recording;
      const created = await record(manager, { category: 'Gas', amount: 450.5, date: '2033-03-31' });
      await ctx.get(OutboxRelay).idle(); // durable: the relay hands the event on after the commit
      expect(received.map((r) => r.name)).toEqual(['expense.recorded']);
      expect(received[0].payload).toEqual({
        expenseId: created.id,
        months: ['2033-03'],
        date: '2033-03-31',
        category: 'Gas',
        amountPaise: 45050,
        recordedBy: manager.id,
        actorId: manager.id,
        messId: ctx.messId,
      });
      expect(await received[0].read).toEqual([expect.objectContaining({ amountPaise: 45050 })]);

      // the admin moves it to the next month (the controller answers 200)
      await replace(admin, created.id, { category: 'Gas', amount: 460, date: '2033-04-01' });
      await ctx.get(OutboxRelay).idle(); // durable: the relay hands the event on after the commit
      expect(received.map((r) => r.name)).toEqual(['expense.recorded', 'expense.changed']);
      expect(received[1].payload).toEqual({
        expenseId: created.id,
        months: ['2033-03', '2033-04'],
        date: '2033-04-01',
        category: 'Gas',
        amountPaise: 46000,
        recordedBy: manager.id,
        actorId: admin.id,
        messId: ctx.messId,
      });
      expect(await received[1].read).toEqual([
        expect.objectContaining({ amountPaise: 46000, date: '2033-04-01' }),
      ]);

      await service().remove(manager.caller, created.id);
      await ctx.get(OutboxRelay).idle(); // durable: the relay hands the event on after the commit
      expect(received[2].name).toBe('expense.deleted');
      expect(received[2].payload).toMatchObject({
        expenseId: created.id,
        months: ['2033-04'],
        amountPaise: 46000,
        messId: ctx.messId,
      });
      expect(await received[2].read).toEqual([]);
    });

    it('publishes nothing for a refused write', async () => {
      const { received } = recording;
      const kept = await record(manager, { category: 'Gas', amount: 1, date: '2033-05-01' });
      await ctx.get(OutboxRelay).idle(); // durable: the relay hands the event on after the commit
      received.length = 0;
      // an unconfigured category (400), another manager's change (403), an unknown expense (404)
      expect(
        (await ctx.refusal(record(manager, { category: 'Other', amount: 1, date: '2033-05-01' }))).status,
      ).toBe(400);
      expect(
        (
          await ctx.refusal(
            replace(otherManager, kept.id, { category: 'Gas', amount: 2, date: '2033-05-01' }),
          )
        ).status,
      ).toBe(403);
      expect((await ctx.refusal(service().remove(admin.caller, UNKNOWN_ID))).status).toBe(404);
      await ctx.get(OutboxRelay).idle(); // durable: the relay hands the event on after the commit
      expect(received).toEqual([]);
    });
  });
  describe('two messes', () => {
    // Acting in mess B: its providers, DTOs and fixtures run there.
    let inB: MediumContext;
    let bTreasurer: MediumMember;
    let bAdmin: MediumMember;
    let bExpenseId: string;
    let aExpenseId: string;
    const inBody = (at: MediumContext, given: object) => at.dto(ExpenseBodyDto, given);
    const stored = (at: MediumContext, id: string) =>
      at.inMess(at.messId, () => ctx.db.select().from(expenses).where(eq(expenses.id, id)).execute());

    beforeAll(async () => {
      inB = ctx.as(ctx.messes.b);
      bAdmin = ctx.messes.b.admin!;
      bTreasurer = await inB.newMember('treasurer', { fullName: 'Bina Treasurer' });
      // 2036-06 is this describe's alone: one expense in each mess, B's in a category only B has
      bExpenseId = (
        await inB
          .get(ExpensesService)
          .record(
            bTreasurer.caller,
            await inBody(inB, { category: 'Fuel', amount: 777, date: '2036-06-10', description: 'B' }),
          )
      ).expense.id;
      aExpenseId = (await record(treasurer, { category: 'Gas', amount: 100, date: '2036-06-11' })).id;
    });

    it("B's expense exists in B, with B's categories, and is no record of A's", async () => {
      // B's service sees it (so an empty answer in A below means something)
      expect((await inB.get(ExpensesService).get(bExpenseId)).expense).toMatchObject({
        category: 'Fuel',
        amountPaise: 77700,
      });
      expect(MESS_B_SETUP.expenseCategories).toContain('Fuel');
      expect(CATEGORIES).not.toContain('Fuel');

      // by id from A: 404
      expect((await ctx.refusal(service().get(bExpenseId))).status).toBe(404);
      // A's list of the month: A's expense only; B's list: B's only
      const month = { startDate: '2036-06-01', endDate: '2036-06-30' };
      const listA = await service().list(await ctx.dto(ListExpensesQuery, month));
      expect(listA.rows.map((r) => r.expense.id)).toEqual([aExpenseId]);
      expect(listA.totalPaise).toBe(10000);
      const listB = await inB.get(ExpensesService).list(await inB.dto(ListExpensesQuery, month));
      expect(listB.rows.map((r) => r.expense.id)).toEqual([bExpenseId]);
      expect(listB.totalPaise).toBe(77700);

      // the aggregates other modules read (billing, analytics): each mess's own
      expect(await ctx.get(ExpensesQueries).monthTotal('2036-06')).toBe(10000);
      expect(await inB.get(ExpensesQueries).monthTotal('2036-06')).toBe(77700);
      expect(await ctx.get(ExpensesQueries).categoryTotals('2036-06-01', '2036-06-30')).toEqual([
        { category: 'Gas', totalPaise: 10000 },
      ]);
      expect(await inB.get(ExpensesQueries).totalsByMonth('2036-01-01', '2036-12-31')).toEqual([
        { month: '2036-06', totalPaise: 77700 },
      ]);
    });

    it('checks a category against the configuration of the mess it records in', async () => {
      // Fuel is B's category, not A's; Gas is A's, not B's
      expect(
        (await ctx.refusal(record(manager, { category: 'Fuel', amount: 1, date: '2036-06-12' }))).status,
      ).toBe(400);
      const gas: ExpenseBodyDto = { category: 'Gas', amount: 1, date: '2036-06-12' };
      expect((await inB.refusal(inB.get(ExpensesService).record(bTreasurer.caller, gas))).status).toBe(400);
    });

    it("A's admin neither changes nor deletes B's expense (404), and it is unchanged in B", async () => {
      const recording = ctx.recordEvents(['expense.changed', 'expense.deleted']);
      try {
        const change = await ctx.refusal(
          replace(admin, bExpenseId, { category: 'Gas', amount: 1, date: '2036-06-10' }),
        );
        expect(change.status).toBe(404);
        expect((await ctx.refusal(service().remove(admin.caller, bExpenseId))).status).toBe(404);
        await ctx.get(OutboxRelay).idle(); // durable: the relay hands the event on after the commit
        expect(recording.received).toEqual([]);
      } finally {
        recording.stop();
      }
      expect(await stored(inB, bExpenseId)).toEqual([
        expect.objectContaining({
          category: 'Fuel',
          amountPaise: 77700,
          date: '2036-06-10',
          description: 'B',
        }),
      ]);
      // nor does it read there at all from A
      expect(await stored(ctx, bExpenseId)).toEqual([]);
    });

    it("and B's admin neither changes nor deletes A's (404), which stays as it was in A", async () => {
      const bService = inB.get(ExpensesService);
      expect(
        (
          await inB.refusal(
            bService.replace(
              bAdmin.caller,
              aExpenseId,
              await inBody(inB, { category: 'Fuel', amount: 1, date: '2036-06-11' }),
            ),
          )
        ).status,
      ).toBe(404);
      expect((await inB.refusal(bService.remove(bAdmin.caller, aExpenseId))).status).toBe(404);
      expect(await stored(ctx, aExpenseId)).toEqual([
        expect.objectContaining({ category: 'Gas', amountPaise: 10000, date: '2036-06-11' }),
      ]);
    });
  });
});
