import { describeConstraint } from '../../common/errors/database-errors';
import { MEAL_DISHES_MAX, MEAL_NOTES_MAX, MEAL_TYPE_MAX } from './meals.schema';

export const MENU_TAKEN = 'A menu for this date and meal type already exists';
export const MEAL_SLOT_UNIQUE = 'meals_mess_date_meal_type_unique';

describeConstraint(MEAL_SLOT_UNIQUE, 409, MENU_TAKEN);
describeConstraint('meals_dishes_check', 400, `A menu needs 1 to ${MEAL_DISHES_MAX} dishes`);
describeConstraint('meals_meal_type_check', 400, `Meal type must be 1 to ${MEAL_TYPE_MAX} characters`);
describeConstraint('meals_notes_check', 400, `Notes must be at most ${MEAL_NOTES_MAX} characters`);
