import { Injectable } from '@nestjs/common';
import { monthBounds } from '../../common/time/dates';
import type { DbOrTx } from '../../database/database';
import { CategoryTotal, ExpensesRepository, MonthTotal } from './expenses.repository';

export type { CategoryTotal, MonthTotal } from './expenses.repository';

/**
 * The read-only view of expenses that other modules (analytics, cost shares, notifications) may use. Every method
 * is one aggregate query in exact integer paise; dates are `YYYY-MM-DD`, ranges inclusive.
 */
@Injectable()
export class ExpensesQueries {
  constructor(private readonly repository: ExpensesRepository) {}

  /** Everything spent in a `YYYY-MM` month, in paise; `db`: the caller's transaction, to read inside it. */
  monthTotal(month: string, db?: DbOrTx): Promise<number> {
    const { first, last } = monthBounds(month);
    return this.repository.totalPaise(first, last, db);
  }

  /** Spending per `YYYY-MM` month between two dates, in month order; months with none are absent. */
  totalsByMonth(from: string, to: string): Promise<MonthTotal[]> {
    return this.repository.totalsByMonth(from, to);
  }

  /** Spending per category between two dates, by category name; categories with none are absent. */
  categoryTotals(from: string, to: string): Promise<CategoryTotal[]> {
    return this.repository.categoryTotals(from, to);
  }
}
