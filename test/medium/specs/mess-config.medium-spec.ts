import { MessConfigModule, MessConfigService } from '../../../src/modules/mess-config';
import { MessCatalogue } from '../../../src/modules/mess-config/mess-catalogue.service';
import { UNCONFIGURED_NAME } from '../../../src/modules/messes';
import { type MediumContext, type MediumMember, MESS_B_SETUP, newMedium } from '../medium.factory';

/**
 * The configuration in two messes: each mess reads its own (through the per-mess cache), and A's setup, replacement
 * or partial change never touches B's. What /auth/admin/config and /messes answer: test/e2e.
 */
describe('Mess configuration (medium): two messes', () => {
  let ctx: MediumContext;
  let inB: MediumContext;
  let aAdmin: MediumMember;

  beforeAll(async () => {
    ctx = await newMedium({ imports: [MessConfigModule] });
    inB = ctx.as(ctx.messes.b);
    aAdmin = await ctx.newMember('admin');
  });
  afterAll(() => ctx?.close());

  const bAsSetUp = {
    messName: MESS_B_SETUP.messName,
    expenseCategories: MESS_B_SETUP.expenseCategories,
    mealTimes: MESS_B_SETUP.mealTimes,
    chargeMethod: 'spec',
    extraItems: [
      { name: 'Egg', pricePaise: 1200 },
      { name: 'Curd', pricePaise: 1550 },
    ],
  };

  it("each mess reads its own configuration: B's as set up, A's the defaults until A sets up", async () => {
    // B first, so that A's answer could only be B's from a cache that ignored the mess
    expect(await inB.get(MessConfigService).settings()).toMatchObject(bAsSetUp);
    expect(await inB.get(MessConfigService).read()).toMatchObject({
      messName: MESS_B_SETUP.messName,
      slug: 'mess-b',
      configured: true,
    });
    const a = await ctx.get(MessConfigService).read();
    expect(a).toMatchObject({ messName: UNCONFIGURED_NAME, slug: 'main', configured: false });
    expect((await ctx.get(MessConfigService).settings()).mealTimes.map((m) => m.name)).toEqual([
      'Breakfast',
      'Lunch',
      'Dinner',
    ]);
    expect((await ctx.refusal(ctx.get(MessConfigService).assertMealType('Supper'))).status).toBe(400);
    await expect(inB.get(MessConfigService).assertMealType('Supper')).resolves.toMatchObject({
      name: 'Supper',
    });
  });

  it("A's setup and changes stay A's; B's configuration is unchanged", async () => {
    await ctx.setUpMess(aAdmin, { messName: 'Hostel 7 Mess', expenseCategories: ['Groceries', 'Gas'] });
    expect((await ctx.get(MessConfigService).read()).messName).toBe('Hostel 7 Mess');
    await ctx.get(MessConfigService).patch(aAdmin, {
      messName: 'Hostel 7 Mess (renamed)',
      expenseCategories: ['Gas'],
      extraItems: [{ name: 'Egg', price: 9 }],
      chargeMethod: 'proportional',
    });
    expect(await ctx.get(MessConfigService).settings()).toMatchObject({
      messName: 'Hostel 7 Mess (renamed)',
      expenseCategories: ['Gas'],
      extraItems: [{ name: 'Egg', pricePaise: 900 }],
    });
    expect(await inB.get(MessConfigService).settings()).toMatchObject(bAsSetUp);

    // B's admin changing B's leaves A's as A set it
    await inB.get(MessConfigService).patch(ctx.messes.b.admin!, { description: 'B only' });
    expect((await inB.get(MessConfigService).read()).description).toBe('B only');
    expect((await ctx.get(MessConfigService).read()).description).toBe('');
    expect((await ctx.get(MessConfigService).read()).messName).toBe('Hostel 7 Mess (renamed)');
  });

  it('the deployment lists both messes, each with its own name', async () => {
    const listed = await ctx.get(MessCatalogue).listMesses();
    expect(listed.map((m) => [m._id, m.messName, m.configured])).toEqual(
      expect.arrayContaining([
        [ctx.messes.a.id, 'Hostel 7 Mess (renamed)', true],
        [ctx.messes.b.id, MESS_B_SETUP.messName, true],
      ]),
    );
  });
});
