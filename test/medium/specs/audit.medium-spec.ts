import { AuditModule } from '../../../src/modules/audit';
import { AuditService } from '../../../src/modules/audit/audit.service';
import { ListAuditQuery } from '../../../src/modules/audit/dto/audit.requests';
import { ExpensesModule } from '../../../src/modules/expenses';
import { ExpenseBodyDto } from '../../../src/modules/expenses/dto/expense.requests';
import { ExpensesService } from '../../../src/modules/expenses/expenses.service';
import { type MediumContext, type MediumMember, newMedium } from '../medium.factory';

/**
 * The audit trail in two messes: each change is audited in the mess it was made in, and A's audit reads never show
 * B's rows, whatever they filter on (entity, record, actor). What /audit answers: test/e2e.
 */
describe('Audit (medium): two messes', () => {
  let ctx: MediumContext;
  let inB: MediumContext;
  let aAdmin: MediumMember;
  let bTreasurer: MediumMember;
  let aExpenseId: string;
  let bExpenseId: string;

  beforeAll(async () => {
    // After the dates the spec records: an expense may be dated at most to the end of next month.
    ctx = await newMedium({ imports: [AuditModule, ExpensesModule], now: new Date('2030-01-20T06:30:00Z') });
    inB = ctx.as(ctx.messes.b);
    aAdmin = await ctx.newMember('admin');
    bTreasurer = await inB.newMember('treasurer', { fullName: 'Bala Treasurer' });
    // one audited change in each mess (A keeps the default categories, B has MESS_B_SETUP's)
    bExpenseId = (
      await inB
        .get(ExpensesService)
        .record(
          bTreasurer.caller,
          await inB.dto(ExpenseBodyDto, { category: 'Fuel', amount: 50, date: '2030-01-02' }),
        )
    ).expense.id;
    aExpenseId = (
      await ctx
        .get(ExpensesService)
        .record(
          aAdmin.caller,
          await ctx.dto(ExpenseBodyDto, { category: 'Gas', amount: 60, date: '2030-01-02' }),
        )
    ).expense.id;
  });
  afterAll(() => ctx?.close());

  const audit = async (at: MediumContext, query: object) =>
    at.get(AuditService).list(await at.dto(ListAuditQuery, query));

  it("B's changes are in B's trail", async () => {
    const byRecord = await audit(inB, { entityId: bExpenseId });
    expect(byRecord.rows.map((r) => [r.event.action, r.event.entity, r.actorName])).toEqual([
      ['created', 'expense', 'Bala Treasurer'],
    ]);
    expect(byRecord.rows[0].event.messId).toBe(ctx.messes.b.id);
    expect((await audit(inB, { entity: 'expense' })).rows.map((r) => r.event.entityId)).toEqual([bExpenseId]);
    // the factory's setup of B, by B's admin
    expect(
      (await audit(inB, { entity: 'config' })).rows.map((r) => [r.event.action, r.event.actorId]),
    ).toEqual([['setup', ctx.messes.b.admin!.id]]);
  });

  it("A's trail never shows them: not by entity, record, actor, or in the whole page", async () => {
    expect((await audit(ctx, { entity: 'expense' })).rows.map((r) => r.event.entityId)).toEqual([aExpenseId]);
    expect(await audit(ctx, { entityId: bExpenseId })).toEqual({ rows: [], total: 0 });
    expect(await audit(ctx, { actorId: bTreasurer.id })).toEqual({ rows: [], total: 0 });
    expect(await audit(ctx, { actorId: ctx.messes.b.admin!.id })).toEqual({ rows: [], total: 0 });
    // A was never set up: no config row of B's shows up as A's
    expect(await audit(ctx, { entity: 'config' })).toEqual({ rows: [], total: 0 });
    const all = await audit(ctx, { limit: 100 });
    expect(all.rows.every((r) => r.event.messId === ctx.messes.a.id)).toBe(true);
    expect(all.total).toBe(1);
  });
});
