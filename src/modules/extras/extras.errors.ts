import { describeConstraint } from '../../common/errors/database-errors';
import { EXTRA_QUANTITY_MAX } from './extras.schema';

export const EXTRA_NOT_FOUND = 'Extra not found';
export const EXTRA_DELETED = 'Extra deleted';

describeConstraint('extras_quantity_check', 400, `Quantity must be 1 to ${EXTRA_QUANTITY_MAX}`);
describeConstraint('extras_unit_price_check', 400, 'The item price is out of range');
