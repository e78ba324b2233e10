import { AccountsService } from '../../../src/modules/accounts';
import { BillingModule, BillingService } from '../../../src/modules/billing';
import { MonthClosingService } from '../../../src/modules/billing/month-closing.service';
import { RecordExtraDto } from '../../../src/modules/extras/dto/extra.requests';
import { ExtrasService } from '../../../src/modules/extras/extras.service';
import { type MediumContext, type MediumMember, newMedium } from '../medium.factory';

const MONTH = '2030-01';

/**
 * The monthly bill in two messes: A's bill of a month counts A's expenses, meals and extras only, B's the same of B
 * (each cached for its own mess), each mess's month closes alone and charges only its members. What /shares and
 * /months answer: test/e2e.
 */
describe('Billing (medium): two messes', () => {
  let ctx: MediumContext;
  let inB: MediumContext;
  let aAdmin: MediumMember;
  let a1: MediumMember;
  let a2: MediumMember;
  let b1: MediumMember;

  beforeAll(async () => {
    // February 2030: January is over in both messes
    ctx = await newMedium({ imports: [BillingModule], now: new Date('2030-02-15T06:00:00Z') });
    inB = ctx.as(ctx.messes.b);
    aAdmin = await ctx.newMember('admin');
    // A: Breakfast, Lunch, Dinner; proportional; Groceries and Gas. B: MESS_B_SETUP (its own, `spec`).
    await ctx.setUpMess(aAdmin);
    [a1, a2] = [await ctx.newMember(), await ctx.newMember()];
    b1 = await inB.newMember('student', { fullName: 'Bimal Student' });

    // A: ₹3,000 and 3 meals (2 + 1); B: ₹9,000 and 3 meals of one member, and ₹12 of extras
    await ctx.newExpense({ category: 'Groceries', amount: 3000, date: '2030-01-05', recordedBy: aAdmin.id });
    await inB.newExpense({
      category: 'Provisions',
      amount: 9000,
      date: '2030-01-05',
      recordedBy: ctx.messes.b.admin!.id,
    });
    for (const [at, member, date, mealType] of [
      [ctx, a1, '2030-01-03', 'Lunch'],
      [ctx, a1, '2030-01-04', 'Dinner'],
      [ctx, a2, '2030-01-04', 'Dinner'],
      [inB, b1, '2030-01-03', 'Lunch'],
      [inB, b1, '2030-01-04', 'Supper'],
      [inB, b1, '2030-01-05', 'Supper'],
    ] as const) {
      await at.newMark({ userId: member.id, date, mealType, status: 'present' });
    }
    await inB
      .get(ExtrasService)
      .record(
        ctx.messes.b.admin!.caller,
        await inB.dto(RecordExtraDto, { userId: b1.id, date: '2030-01-06', item: 'Egg', quantity: 1 }),
      );
  });
  afterAll(() => ctx?.close());

  const billIn = (at: MediumContext) => at.get(BillingService).bill(MONTH, 'proportional');
  const sharesOf = (view: Awaited<ReturnType<typeof billIn>>) =>
    Object.fromEntries(view.bill.shares.map((s) => [s.userId, [s.meals, s.sharePaise]]));

  it("A's bill of a month counts A's expenses and meals only; B's, B's (each mess's own cached answer)", async () => {
    // A first, so that B's answer could only be A's from a cache that ignored the mess
    const a = await billIn(ctx);
    expect(a.bill).toMatchObject({ totalPaise: 300000, activeMembers: 2, totalMeals: 3 });
    expect(sharesOf(a)).toEqual({ [a1.id]: [2, 200000], [a2.id]: [1, 100000] });
    expect(a.extras.size).toBe(0);
    expect(a.names.has(b1.id)).toBe(false);

    const b = await billIn(inB);
    expect(b.bill).toMatchObject({ totalPaise: 900000, activeMembers: 1, totalMeals: 3 });
    expect(sharesOf(b)).toEqual({ [b1.id]: [3, 900000] });
    expect([...b.extras]).toEqual([[b1.id, 1200]]);

    // and A's again: still A's
    expect((await billIn(ctx)).bill.totalPaise).toBe(300000);
  });

  it("reads each mess's own meal figures and configuration", async () => {
    const aFigures = await ctx.get(BillingService).mealFigures(MONTH);
    const bFigures = await inB.get(BillingService).mealFigures(MONTH);
    expect(aFigures.map((f) => f.mealType).sort()).toEqual(['Dinner', 'Lunch']);
    expect(bFigures.map((f) => f.mealType).sort()).toEqual(['Lunch', 'Supper']);
    expect(await ctx.get(BillingService).chargeMethod()).toBe('proportional');
    expect(await inB.get(BillingService).chargeMethod()).toBe('spec');
    // B's last meal (Supper) ends half an hour after A's (Dinner)
    const aEnd = await ctx.get(BillingService).lastMealEnd(MONTH);
    const bEnd = await inB.get(BillingService).lastMealEnd(MONTH);
    expect(bEnd.getTime() - aEnd.getTime()).toBe(30 * 60_000);
  });

  it("closing A's month charges A's members only and leaves B's month open", async () => {
    const closed = await ctx.get(MonthClosingService).close(MONTH, aAdmin.id);
    expect(closed.closed).toBe(true);
    expect(closed.bill.totalPaise).toBe(300000);
    expect(await ctx.get(BillingService).closedAmong([MONTH])).toEqual([MONTH]);
    expect(
      (await ctx.get(AccountsService).dueBalances()).sort((p, q) => (p.userId < q.userId ? -1 : 1)),
    ).toEqual(
      [
        { userId: a1.id, balancePaise: 200000 },
        { userId: a2.id, balancePaise: 100000 },
      ].sort((p, q) => (p.userId < q.userId ? -1 : 1)),
    );

    // B's month: open, its bill live, nobody of B charged
    expect(await inB.get(BillingService).closedAmong([MONTH])).toEqual([]);
    const b = await billIn(inB);
    expect(b.closed).toBe(false);
    expect(b.bill.totalPaise).toBe(900000);
    expect(await inB.get(AccountsService).dueBalances()).toEqual([]);

    // B closes its own: B's member charged B's bill (meals and the egg) under B's method, A's untouched
    const bClosed = await inB.get(MonthClosingService).close(MONTH, ctx.messes.b.admin!.id);
    expect(bClosed.bill.method).toBe('spec');
    expect(await inB.get(AccountsService).dueBalances()).toEqual([{ userId: b1.id, balancePaise: 901200 }]);
    expect((await ctx.get(AccountsService).dueBalances()).map((d) => d.userId)).not.toContain(b1.id);
  });
});
