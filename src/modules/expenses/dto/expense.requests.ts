import { CheckedBy } from '../../../common/http/field-checks';
import { PageQuery } from '../../../common/http/paging';
import { ConfiguredExpenseCategory } from '../../mess-config';
import { DateField, RupeesField, TextField } from '../../../common/http/fields';
import { ExpenseDateWithinReach } from '../expense-date.check';
import { EXPENSE_CATEGORY_MAX, EXPENSE_DESCRIPTION_MAX } from '../expenses.schema';

/** The largest page the expense list serves; a larger `limit` is a 400, not a silent cut. */
export const EXPENSE_PAGE_MAX = 100;

/**
 * The four fields of an expense; PUT replaces all of them, so both verbs share this shape. The category (against the
 * configuration) and how far ahead the date is (against the clock) are checked beside the field rules, so one 400
 * names every bad field.
 */
@CheckedBy(ConfiguredExpenseCategory, ExpenseDateWithinReach)
export class ExpenseBodyDto {
  @TextField(1, EXPENSE_CATEGORY_MAX, {
    description: 'One of the configured expense categories (GET /auth/admin/config), exact spelling',
    example: 'Vegetables',
  })
  category: string;

  @RupeesField()
  amount: number;

  @TextField(0, EXPENSE_DESCRIPTION_MAX, {
    optional: true,
    multiline: true,
    description: 'Free text; an empty string when omitted',
    example: 'Onions and tomatoes, weekly market',
  })
  description?: string;

  @DateField({
    description:
      'The day the money was spent (YYYY-MM-DD, a real date), at the latest the last day of next month in the ' +
      "mess's time zone (an advance for next month is fine; a later date is a 400 naming `date` and the limit)",
  })
  date: string;
}

export class CreateExpenseDto extends ExpenseBodyDto {}

/** A full replacement: the same fields and rules as POST; an omitted description becomes empty. */
export class UpdateExpenseDto extends ExpenseBodyDto {}

export class ListExpensesQuery extends PageQuery(10, EXPENSE_PAGE_MAX) {
  @TextField(1, EXPENSE_CATEGORY_MAX, {
    optional: true,
    description:
      'Exact category. Not checked against the configuration, so expenses of a category since removed stay findable.',
    example: 'Vegetables',
  })
  category?: string;

  @DateField({ optional: true, description: 'Inclusive lower bound on `date`', example: '2025-03-01' })
  startDate?: string;

  @DateField({
    optional: true,
    description: 'Inclusive upper bound on `date`; not before startDate',
    example: '2025-03-31',
  })
  endDate?: string;
}
