import { PageQuery } from '../../../common/http/paging';
import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import {
  IsNumber,
  IsPositive,
  Max,
  Validate,
  ValidatorConstraint,
  type ValidationArguments,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { DateField, TextField } from '../../../common/http/fields';
import { MAX_AMOUNT_RUPEES, toPaise } from '../../../common/money/money';
import { EXPENSE_CATEGORY_MAX, EXPENSE_DESCRIPTION_MAX } from '../expenses.schema';

/** The largest page the expense list serves; a larger `limit` is a 400, not a silent cut. */
export const EXPENSE_PAGE_MAX = 100;

@ValidatorConstraint({ name: 'rupees' })
class RupeesConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'number' && toPaise(value) !== undefined;
  }
  defaultMessage(args?: ValidationArguments): string {
    return `${args?.property ?? 'amount'} must have at most two decimals (whole paise)`;
  }
}

/** Rupees as a JSON number: positive, whole paise, at most MAX_AMOUNT_RUPEES. */
const RupeesField = () =>
  applyDecorators(
    ApiProperty({
      type: Number,
      description: `Rupees, more than 0, at most two decimals, at most ${MAX_AMOUNT_RUPEES}`,
      minimum: 0.01,
      maximum: MAX_AMOUNT_RUPEES,
      example: 1250.5,
    }),
    IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'amount must be a number' }),
    IsPositive({ message: 'amount must be more than 0' }),
    Max(MAX_AMOUNT_RUPEES, { message: `amount must be at most ${MAX_AMOUNT_RUPEES}` }),
    Validate(RupeesConstraint),
  );

/** The four fields of an expense; PUT replaces all of them, so both verbs share this shape. */
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

  @DateField({ description: 'The day the money was spent (YYYY-MM-DD, a real date)' })
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
