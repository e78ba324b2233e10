import { describeConstraint } from '../../common/errors/database-errors';

export const MESS_ALREADY_SET_UP = 'The mess is already set up';
export const MESS_NOT_SET_UP = 'The mess is not set up yet; use POST /auth/admin/setup';

describeConstraint('mess_config_singleton_unique', 409, MESS_ALREADY_SET_UP);
