import { eq } from 'drizzle-orm';
import { ExtrasModule, ExtrasQueries } from '../../../src/modules/extras';
import { ListExtrasQuery, RecordExtraDto } from '../../../src/modules/extras/dto/extra.requests';
import { extras } from '../../../src/modules/extras/extras.schema';
import { ExtrasService } from '../../../src/modules/extras/extras.service';
import { type MediumContext, type MediumMember, MESS_B_SETUP, newMedium } from '../medium.factory';

/**
 * Extras in two messes: each mess prices an item from its own catalogue, and A's extras service never lists, totals,
 * charges or deletes B's extras (nor records one for B's member). What /extras answers: test/e2e/extras.e2e-spec.ts.
 */
describe('Extras (medium): two messes', () => {
  let ctx: MediumContext;
  let inB: MediumContext;
  let aManager: MediumMember;
  let aStudent: MediumMember;
  let bManager: MediumMember;
  let bStudent: MediumMember;
  let aExtraId: string;
  let bExtraId: string;

  beforeAll(async () => {
    ctx = await newMedium({ imports: [ExtrasModule], now: new Date('2030-02-15T06:00:00Z') });
    inB = ctx.as(ctx.messes.b);
    // A's catalogue: an Egg at ₹10 and an Omelette; B's (MESS_B_SETUP): an Egg at ₹12 and Curd.
    const aAdmin = await ctx.newMember('admin');
    await ctx.setUpMess(aAdmin, {
      extraItems: [
        { name: 'Egg', price: 10 },
        { name: 'Omelette', price: 25 },
      ],
    });
    aManager = await ctx.newMember('manager');
    aStudent = await ctx.newMember('student', { fullName: 'Arun Student' });
    bManager = await inB.newMember('manager');
    bStudent = await inB.newMember('student', { fullName: 'Bharti Student' });
    bExtraId = (
      await record(inB, bManager, { userId: bStudent.id, date: '2030-01-20', item: 'egg', quantity: 2 })
    ).extra.id;
    aExtraId = (
      await record(ctx, aManager, { userId: aStudent.id, date: '2030-01-20', item: 'Egg', quantity: 1 })
    ).extra.id;
  });
  afterAll(() => ctx?.close());

  async function record(at: MediumContext, member: MediumMember, body: object) {
    return at.get(ExtrasService).record(member.caller, await at.dto(RecordExtraDto, body));
  }
  const list = async (at: MediumContext, member: MediumMember, query: object) =>
    at.get(ExtrasService).list(member.caller, await at.dto(ListExtrasQuery, query));
  const stored = (at: MediumContext, id: string) =>
    at.inMess(at.messId, () => ctx.db.select().from(extras).where(eq(extras.id, id)).execute());

  it("prices each mess's Egg from that mess's catalogue", async () => {
    expect(MESS_B_SETUP.extraItems).toContainEqual({ name: 'Egg', price: 12 });
    expect(await stored(inB, bExtraId)).toEqual([
      expect.objectContaining({ item: 'Egg', unitPricePaise: 1200, quantity: 2, amountPaise: 2400 }),
    ]);
    expect(await stored(ctx, aExtraId)).toEqual([
      expect.objectContaining({ item: 'Egg', unitPricePaise: 1000, quantity: 1, amountPaise: 1000 }),
    ]);
    // an item of the other mess's catalogue only is refused
    const curdInA = await ctx.refusal(
      record(ctx, aManager, { userId: aStudent.id, date: '2030-01-21', item: 'Curd', quantity: 1 }),
    );
    expect(curdInA.status).toBe(400);
    const omeletteInB = await inB.refusal(
      record(inB, bManager, { userId: bStudent.id, date: '2030-01-21', item: 'Omelette', quantity: 1 }),
    );
    expect(omeletteInB.status).toBe(400);
  });

  it("A's list and month totals hold A's extras only; B's, B's", async () => {
    const aList = await list(ctx, aManager, { month: '2030-01' });
    expect(aList.rows.map((r) => r.id)).toEqual([aExtraId]);
    expect(aList.totalPaise).toBe(1000);
    // naming B's member from A finds nothing
    expect((await list(ctx, aManager, { userId: bStudent.id })).total).toBe(0);
    const bList = await list(inB, bManager, { month: '2030-01' });
    expect(bList.rows.map((r) => r.id)).toEqual([bExtraId]);
    expect(bList.totalPaise).toBe(2400);

    expect(await ctx.get(ExtrasQueries).monthTotalsByMember('2030-01')).toEqual([
      { userId: aStudent.id, fullName: 'Arun Student', amountPaise: 1000 },
    ]);
    expect(await inB.get(ExtrasQueries).monthTotalsByMember('2030-01')).toEqual([
      { userId: bStudent.id, fullName: 'Bharti Student', amountPaise: 2400 },
    ]);
  });

  it("A's manager neither deletes B's extra (404) nor records one for B's member (404); B's is unchanged", async () => {
    const recording = ctx.recordEvents(['extra.recorded', 'extra.deleted']);
    try {
      expect((await ctx.refusal(ctx.get(ExtrasService).remove(aManager.caller, bExtraId))).status).toBe(404);
      const forB = await ctx.refusal(
        record(ctx, aManager, { userId: bStudent.id, date: '2030-01-22', item: 'Egg', quantity: 3 }),
      );
      expect(forB.status).toBe(404);
      expect(recording.received).toEqual([]);
    } finally {
      recording.stop();
    }
    expect(await stored(inB, bExtraId)).toEqual([expect.objectContaining({ amountPaise: 2400 })]);
    expect((await list(inB, bManager, { userId: bStudent.id })).rows.map((r) => r.id)).toEqual([bExtraId]);
    expect(await stored(ctx, bExtraId)).toEqual([]);
  });

  it("and B's manager cannot delete A's extra (404), which stays in A", async () => {
    expect((await inB.refusal(inB.get(ExtrasService).remove(bManager.caller, aExtraId))).status).toBe(404);
    expect(await stored(ctx, aExtraId)).toEqual([expect.objectContaining({ amountPaise: 1000 })]);
  });
});
