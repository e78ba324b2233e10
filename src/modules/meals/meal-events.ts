import type { MealEvent } from '../../common/events/domain-events';
import type { MealRow } from './meals.schema';

export const mealEvent = (row: MealRow, actorId: string): MealEvent => ({
  mealId: row.id,
  date: row.date,
  mealType: row.mealType,
  dishes: [...row.dishes],
  actorId,
  updatedAt: row.updatedAt.toISOString(),
});
