import { describeConstraint } from '../../common/errors/database-errors';

export const MEAL_NOT_STARTED = 'The meal has not started yet: record its waste once it is served';

describeConstraint('kitchen_waste_leftover_check', 400, 'leftoverKg must be 0 to 10000');
describeConstraint('kitchen_waste_prepared_check', 400, 'preparedPlates must be 0 to 100000');
