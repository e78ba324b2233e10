import { AccountsModule, AccountsService } from '../../../src/modules/accounts';
import { AccountsQueries } from '../../../src/modules/accounts/accounts.queries';
import { LedgerService } from '../../../src/modules/accounts/ledger.service';
import { type MediumContext, type MediumMember, newMedium } from '../medium.factory';

/**
 * Members' accounts in two messes: A's ledger and queries never list, total, read, reverse or post to B's entries or
 * members; B's balances stay as B recorded them. What /accounts answers: test/e2e.
 */
describe('Accounts (medium): two messes', () => {
  let ctx: MediumContext;
  let inB: MediumContext;
  let aAdmin: MediumMember;
  let aStudent: MediumMember;
  let bAdmin: MediumMember;
  let bStudent: MediumMember;
  let bEntryId: string;
  let aEntryId: string;

  beforeAll(async () => {
    ctx = await newMedium({ imports: [AccountsModule], now: new Date('2030-03-10T06:00:00Z') });
    inB = ctx.as(ctx.messes.b);
    aAdmin = await ctx.newMember('admin');
    aStudent = await ctx.newMember('student', { fullName: 'Amar Student' });
    bAdmin = ctx.messes.b.admin!;
    bStudent = await inB.newMember('student', { fullName: 'Bhanu Student' });
    // B: ₹500 owed, ₹100 paid: ₹400 due. A: ₹200 owed.
    await inB
      .get(LedgerService)
      .recordAdjustment(bAdmin.id, bStudent.id, { direction: 'debit', amountPaise: 50000, note: 'B dues' });
    bEntryId = (
      await inB
        .get(LedgerService)
        .recordPayment(bAdmin.id, bStudent.id, { amountPaise: 10000, date: '2030-03-01', method: 'cash' })
    ).entry.id;
    aEntryId = (
      await ctx
        .get(LedgerService)
        .recordAdjustment(aAdmin.id, aStudent.id, { direction: 'debit', amountPaise: 20000, note: 'A dues' })
    ).entry.id;
  });
  afterAll(() => ctx?.close());

  const accountIn = (at: MediumContext, reader: MediumMember, userId: string) =>
    at.get(AccountsQueries).account(reader.caller, userId, 1, 50);

  it("B's member's account is in B, and nowhere in A's lists, dues or reads", async () => {
    const b = await accountIn(inB, bAdmin, bStudent.id);
    expect(b.balancePaise).toBe(40000);
    expect(b.total).toBe(2);

    const aList = await ctx.get(AccountsQueries).accounts(undefined, 1, 100);
    const listed = aList.rows.map((r) => r.userId);
    expect(listed).toContain(aStudent.id);
    expect(listed).not.toContain(bStudent.id);
    expect(listed).not.toContain(bAdmin.id);
    expect(aList.duePaise).toBe(20000);
    const bList = await inB.get(AccountsQueries).accounts('due', 1, 100);
    expect(bList.rows.map((r) => [r.userId, r.balancePaise])).toEqual([[bStudent.id, 40000]]);

    expect(await ctx.get(AccountsService).dueBalances()).toEqual([
      { userId: aStudent.id, balancePaise: 20000 },
    ]);
    expect(await inB.get(AccountsService).dueBalances()).toEqual([
      { userId: bStudent.id, balancePaise: 40000 },
    ]);

    // A's admin reading B's member: not found
    expect((await ctx.refusal(accountIn(ctx, aAdmin, bStudent.id))).status).toBe(404);
    expect(
      (
        await ctx.refusal(
          ctx.get(AccountsQueries).statement(aAdmin.caller, bStudent.id, '2030-03', '2030-03'),
        )
      ).status,
    ).toBe(404);
  });

  it("A's admin neither reverses B's entry nor posts to B's member (404); B's balance is unchanged", async () => {
    const ledger = ctx.get(LedgerService);
    const recording = ctx.recordEvents(['account.payment-recorded']);
    try {
      expect((await ctx.refusal(ledger.reverse(aAdmin.id, bEntryId, 'from A'))).status).toBe(404);
      expect(
        (
          await ctx.refusal(
            ledger.recordAdjustment(aAdmin.id, bStudent.id, {
              direction: 'credit',
              amountPaise: 40000,
              note: 'A',
            }),
          )
        ).status,
      ).toBe(404);
      expect(
        (
          await ctx.refusal(
            ledger.recordPayment(aAdmin.id, bStudent.id, {
              amountPaise: 40000,
              date: '2030-03-02',
              method: 'upi',
            }),
          )
        ).status,
      ).toBe(404);
      expect(recording.received).toEqual([]);
    } finally {
      recording.stop();
    }
    const b = await accountIn(inB, bAdmin, bStudent.id);
    expect(b.balancePaise).toBe(40000);
    expect(b.entries.map((e) => e.kind).sort()).toEqual(['adjustment', 'payment']);
  });

  it("and B's admin cannot reverse A's entry (404), which stands in A", async () => {
    expect((await inB.refusal(inB.get(LedgerService).reverse(bAdmin.id, aEntryId, 'from B'))).status).toBe(
      404,
    );
    const a = await accountIn(ctx, aAdmin, aStudent.id);
    expect(a.balancePaise).toBe(20000);
    expect(a.entries.map((e) => e.id)).toEqual([aEntryId]);
  });
});
