import { describeConstraint } from '../../common/errors/database-errors';
import { MAX_AMOUNT_RUPEES } from '../../common/money/money';
import { EXPENSE_CATEGORY_MAX, EXPENSE_DESCRIPTION_MAX } from './expenses.schema';

describeConstraint(
  'expenses_amount_check',
  400,
  `Amount must be more than 0 and at most ${MAX_AMOUNT_RUPEES} rupees`,
);
describeConstraint(
  'expenses_category_check',
  400,
  `Category must be 1 to ${EXPENSE_CATEGORY_MAX} characters`,
);
describeConstraint(
  'expenses_description_check',
  400,
  `Description must be at most ${EXPENSE_DESCRIPTION_MAX} characters`,
);
