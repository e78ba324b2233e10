import { eq } from 'drizzle-orm';
import { MealsModule, MealsService } from '../../../src/modules/meals';
import { MealBodyDto } from '../../../src/modules/meals/dto/meal.requests';
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
      expect(received[2].name).toBe('meal.deleted');
      expect(received[2].payload).toMatchObject({ mealId: meal.id, date: '2025-07-02', messId: ctx.messId });
      expect(await received[2].read).toEqual([]);
    });
  });
});
