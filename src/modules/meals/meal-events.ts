import type { MealEvent } from '../../common/events/event-map';
import type { MealRow } from './meals.schema';

export const mealEvent = (row: MealRow, actorId: string): MealEvent => ({
  mealId: row.id,
  date: row.date,
  mealType: row.mealType,
  dishes: [...row.dishes],
  actorId,
  updatedAt: row.updatedAt.toISOString(),
});
