import { eq } from 'drizzle-orm';
import { OutboxRelay } from '../../../src/modules/outbox';
import { MealsModule, MealsService } from '../../../src/modules/meals';
import { ListMealsQuery, MealBodyDto } from '../../../src/modules/meals/dto/meal.requests';
import { meals } from '../../../src/modules/meals/meals.schema';
import { type MediumContext, type MediumMember, newMedium } from '../medium.factory';

/**
 * The menu's internals, called directly: the domain events its writes publish, each after commit. That a refused
 * write publishes nothing and a failing listener does not fail the request: test/e2e/meals-publishing.
 */
describe('Meals (medium)', () => {
  let ctx: MediumContext;
  let admin: MediumMember;
  let manager: MediumMember;

  beforeAll(async () => {
    ctx = await newMedium({ imports: [MealsModule], env: { MESS_TIMEZONE: 'Asia/Kolkata' } });
    admin = await ctx.newMember('admin', { fullName: 'Mess Admin' });
    manager = await ctx.newMember('manager', { fullName: 'Meera Nair' });
    // Four meal times; Supper is no default meal time, so only the stored configuration makes it valid.
    await ctx.setUpMess(admin, {
      expenseCategories: ['Groceries'],
      mealTimes: [
        { name: 'Breakfast', startTime: '07:30', endTime: '09:30' },
        { name: 'Lunch', startTime: '12:30', endTime: '14:30' },
        { name: 'Snacks', startTime: '16:30', endTime: '17:30' },
        { name: 'Supper', startTime: '19:30', endTime: '21:30' },
      ],
    });
  });
  afterAll(() => ctx?.close());

  const service = () => ctx.get(MealsService);
  // The body is validated as the controller's pipe does in a request, in the request's mess: the meal types it
  // checks are that mess's.
  const body = (given: object) => ctx.inMess(ctx.messId, () => ctx.dto(MealBodyDto, given));
  const publish = async (member: MediumMember, given: object) =>
    (await service().publish(member.caller, await body(given))).meal;

  describe('domain events', () => {
    let recording: ReturnType<typeof startRecording>;
    const startRecording = () =>
      // Reads the row as the listener sees it at emission, in the event's mess: what has been committed by then.
      ctx.recordEvents(['meal.published', 'meal.changed', 'meal.deleted'], (payload) =>
        ctx.inMess(payload.messId, () =>
          ctx.db.select().from(meals).where(eq(meals.id, payload.mealId)).execute(),
        ),
      );
    beforeEach(() => {
      recording = startRecording();
    });
    afterEach(() => recording.stop());

    it('publishes published, changed and deleted, each after its write committed', async () => {
      const { received } = recording;
      const meal = await publish(manager, {
        date: '2025-07-01',
        mealType: 'Lunch',
        dishes: ['Rice', 'Sambar'],
      });
      await ctx.get(OutboxRelay).idle(); // durable: the relay hands the event on after the commit
      expect(received.map((r) => r.name)).toEqual(['meal.published']);
      expect(received[0].payload).toEqual({
        mealId: meal.id,
        date: '2025-07-01',
        mealType: 'Lunch',
        dishes: ['Rice', 'Sambar'],
        actorId: manager.id,
        updatedAt: expect.any(String),
        messId: ctx.messId,
      });
      expect(await received[0].read).toEqual([expect.objectContaining({ dishes: ['Rice', 'Sambar'] })]);

      // the admin changes it (the controller answers 200)
      await service().replace(
        admin.caller,
        meal.id,
        await body({ date: '2025-07-02', mealType: 'Lunch', dishes: ['Curd rice'] }),
      );
      await ctx.get(OutboxRelay).idle(); // durable: the relay hands the event on after the commit
      expect(received[1].name).toBe('meal.changed');
      expect(received[1].payload).toEqual({
        mealId: meal.id,
        date: '2025-07-02',
        mealType: 'Lunch',
        dishes: ['Curd rice'],
        actorId: admin.id,
        updatedAt: expect.any(String),
        messId: ctx.messId,
      });
      expect(await received[1].read).toEqual([expect.objectContaining({ date: '2025-07-02' })]);

      await service().remove(manager.caller, meal.id);
      await ctx.get(OutboxRelay).idle(); // durable: the relay hands the event on after the commit
      expect(received[2].name).toBe('meal.deleted');
      expect(received[2].payload).toMatchObject({ mealId: meal.id, date: '2025-07-02', messId: ctx.messId });
      expect(await received[2].read).toEqual([]);
    });
  });
  describe('two messes', () => {
    let inB: MediumContext;
    let bManager: MediumMember;
    let bMealId: string;
    const stored = (at: MediumContext, id: string) =>
      at.inMess(at.messId, () => ctx.db.select().from(meals).where(eq(meals.id, id)).execute());
    const onDay = (at: MediumContext) => at.dto(ListMealsQuery, { date: '2036-03-02' });

    beforeAll(async () => {
      inB = ctx.as(ctx.messes.b);
      bManager = await inB.newMember('manager', { fullName: 'Bala Manager' });
      bMealId = (
        await inB
          .get(MealsService)
          .publish(
            bManager.caller,
            await inB.dto(MealBodyDto, { date: '2036-03-02', mealType: 'Lunch', dishes: ['Pulao'] }),
          )
      ).meal.id;
    });

    it("B's menu is B's: A's slot stays free, A's list and by-id never show it", async () => {
      expect(await inB.get(MealsService).exists('2036-03-02', 'Lunch')).toBe(true);
      expect((await inB.get(MealsService).list(await onDay(inB))).map((m) => m.meal.id)).toEqual([bMealId]);

      expect(await service().exists('2036-03-02', 'Lunch')).toBe(false);
      expect(await service().list(await onDay(ctx))).toEqual([]);
      expect((await ctx.refusal(service().get(bMealId))).status).toBe(404);

      // A publishes the same slot: its own menu, not a 409 naming B's
      const aMeal = await publish(manager, { date: '2036-03-02', mealType: 'Lunch', dishes: ['Rice'] });
      expect(aMeal.id).not.toBe(bMealId);
      expect((await service().list(await onDay(ctx))).map((m) => m.meal.id)).toEqual([aMeal.id]);
      expect((await inB.get(MealsService).list(await onDay(inB))).map((m) => m.meal.dishes)).toEqual([
        ['Pulao'],
      ]);
    });

    it("A's admin neither changes nor withdraws B's menu (404), and it is unchanged in B", async () => {
      const recording = ctx.recordEvents(['meal.changed', 'meal.deleted']);
      try {
        const change = await ctx.refusal(
          service().replace(
            admin.caller,
            bMealId,
            await body({ date: '2036-03-03', mealType: 'Lunch', dishes: ['Changed by A'] }),
          ),
        );
        expect(change.status).toBe(404);
        expect((await ctx.refusal(service().remove(admin.caller, bMealId))).status).toBe(404);
        await ctx.get(OutboxRelay).idle(); // durable: the relay hands the event on after the commit
        expect(recording.received).toEqual([]);
      } finally {
        recording.stop();
      }
      expect(await stored(inB, bMealId)).toEqual([
        expect.objectContaining({ date: '2036-03-02', mealType: 'Lunch', dishes: ['Pulao'] }),
      ]);
      expect(await stored(ctx, bMealId)).toEqual([]);
    });

    it('checks a meal type against the configuration of the mess it publishes in', async () => {
      // Snacks is A's meal time, not B's
      const snacks = await ctx.refusal(
        inB
          .get(MealsService)
          .publish(bManager.caller, { date: '2036-03-04', mealType: 'Snacks', dishes: ['Tea'] }),
      );
      expect(snacks.status).toBe(400);
      expect(
        await publish(manager, { date: '2036-03-04', mealType: 'Snacks', dishes: ['Tea'] }),
      ).toBeDefined();
    });
  });
});
