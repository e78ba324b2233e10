import { describeConstraint } from '../../common/errors/database-errors';

export const MESS_ALREADY_SET_UP = 'The mess is already set up';
export const MESS_NOT_SET_UP = 'The mess is not set up yet; use POST /auth/admin/setup';
export const SLUG_TAKEN = 'A mess with this slug already exists';
export const MESS_NAME_TAKEN = 'A mess with this name already exists';

describeConstraint('mess_config_mess_unique', 409, MESS_ALREADY_SET_UP);
describeConstraint('messes_slug_unique', 409, SLUG_TAKEN);
describeConstraint('mess_config_name_unique', 409, MESS_NAME_TAKEN);
