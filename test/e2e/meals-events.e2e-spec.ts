import { EventEmitter2 } from '@nestjs/event-emitter';
import { eq } from 'drizzle-orm';
import type { MealEvent } from '../../src/common/events/event-map';
import { Database } from '../../src/database/database';
import { meals } from '../../src/modules/meals/meals.schema';
import { TestApp } from '../support/app';
import { ids, mealsOn, type Member, publishMeal, startMealsApp } from '../support/meals';

/** The domain events meals publish, after commit, and never for a refused write. */
describe('Meals: domain events', () => {
  let t: TestApp;
  let admin: string;
  let adminId: string;
  let manager: Member;
  let otherManager: Member;
  let student: Member;

  beforeAll(async () => {
    ({ t, admin, adminId, manager, otherManager, student } = await startMealsApp());
  });
  afterAll(() => t?.close());

  const publish = (token: string, body: Record<string, unknown>) => publishMeal(t, token, body);
  const onDate = (date: string) => mealsOn(t, student.token, date);

  describe('domain events', () => {
    let emitter: EventEmitter2;
    const received: { name: string; payload: MealEvent; committed: Promise<unknown> }[] = [];
    const listeners: [string, (payload: MealEvent) => void][] = [];

    beforeAll(() => {
      emitter = t.app.get(EventEmitter2);
      const { db } = t.app.get(Database);
      for (const name of ['meal.published', 'meal.changed', 'meal.deleted']) {
        const listener = (payload: MealEvent) => {
          received.push({
            name,
            payload,
            committed: db.select().from(meals).where(eq(meals.id, payload.mealId)).execute(),
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

    it('publishes published, changed and deleted, each after its write committed', async () => {
      const meal = await publish(manager.token, {
        date: '2025-07-01',
        mealType: 'Lunch',
        dishes: ['Rice', 'Sambar'],
      });
      expect(received.map((r) => r.name)).toEqual(['meal.published']);
      expect(received[0].payload).toEqual({
        mealId: meal._id,
        date: '2025-07-01',
        mealType: 'Lunch',
        dishes: ['Rice', 'Sambar'],
        actorId: manager.id,
        updatedAt: expect.any(String),
      });
      expect(await received[0].committed).toEqual([expect.objectContaining({ dishes: ['Rice', 'Sambar'] })]);

      const changed = await t.put(
        `/meals/${meal._id}`,
        { date: '2025-07-02', mealType: 'Lunch', dishes: ['Curd rice'] },
        { token: admin },
      );
      expect(changed.status).toBe(200);
      expect(received[1].name).toBe('meal.changed');
      expect(received[1].payload).toEqual({
        mealId: meal._id,
        date: '2025-07-02',
        mealType: 'Lunch',
        dishes: ['Curd rice'],
        actorId: adminId,
        updatedAt: expect.any(String),
      });
      expect(await received[1].committed).toEqual([expect.objectContaining({ date: '2025-07-02' })]);

      expect((await t.delete(`/meals/${meal._id}`, { token: manager.token })).status).toBe(200);
      expect(received[2].name).toBe('meal.deleted');
      expect(received[2].payload).toMatchObject({ mealId: meal._id, date: '2025-07-02' });
      expect(await received[2].committed).toEqual([]);
    });

    it('publishes nothing for a refused write, and a failing listener does not fail the request', async () => {
      const meal = await publish(manager.token, { date: '2025-07-03', mealType: 'Lunch', dishes: ['Rice'] });
      received.length = 0;
      await t.post(
        '/meals',
        { date: '2025-07-03', mealType: 'Lunch', dishes: ['Again'] },
        { token: manager.token },
      );
      await t.put(
        `/meals/${meal._id}`,
        { date: '2025-07-03', mealType: 'Lunch', dishes: ['X'] },
        {
          token: otherManager.token,
        },
      );
      await t.post(
        '/meals',
        { date: '2025-07-03', mealType: 'Dinner', dishes: ['X'] },
        { token: manager.token },
      );
      expect(received).toEqual([]);

      const failing = () => {
        throw new Error('listener down');
      };
      emitter.on('meal.published', failing);
      try {
        const res = await t.post(
          '/meals',
          { date: '2025-07-04', mealType: 'Lunch', dishes: ['Rice'] },
          {
            token: manager.token,
          },
        );
        expect(res.status).toBe(201);
        expect(ids(await onDate('2025-07-04'))).toEqual([res.body.meal._id]);
      } finally {
        emitter.off('meal.published', failing);
      }
    });
  });
});
