import { Injectable } from '@nestjs/common';
import { and, count, desc, eq, gte, lte, sql, SQL } from 'drizzle-orm';
import { Database, DbOrTx } from '../../database/database';
import { memberNames } from '../users';
import { expenses, ExpenseRow, NewExpenseRow } from './expenses.schema';
import { inTransaction } from '../../database/transactions';

export interface ExpenseWithRecorder {
  expense: ExpenseRow;
  /** Null only if the recording member no longer exists. */
  recorderName: string | null;
}

export interface ExpenseListFilter {
  category?: string;
  /** Inclusive `YYYY-MM-DD` bounds on the expense date. */
  from?: string;
  to?: string;
  limit: number;
  offset: number;
}

export interface ExpensePage {
  rows: ExpenseWithRecorder[];
  total: number;
  totalPaise: number;
}

export interface MonthTotal {
  /** `YYYY-MM` */
  month: string;
  totalPaise: number;
}

export interface CategoryTotal {
  category: string;
  totalPaise: number;
}

export type ExpenseValues = Pick<NewExpenseRow, 'category' | 'amountPaise' | 'description' | 'date'>;

const withRecorder = { expense: expenses, recorderName: memberNames.fullName };

// sum(integer) is a bigint; it arrives as a string and is exact below 2^53 paise
const sumPaise = sql<number>`coalesce(sum(${expenses.amountPaise}), 0)`.mapWith(Number);
const between = (from: string, to: string) => and(gte(expenses.date, from), lte(expenses.date, to));

/** The only code that queries `expenses`. */
@Injectable()
export class ExpensesRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  async findById(id: string): Promise<ExpenseWithRecorder | undefined> {
    const [row] = await this.db
      .select(withRecorder)
      .from(expenses)
      .leftJoin(memberNames, eq(memberNames.memberId, expenses.recordedBy))
      .where(eq(expenses.id, id))
      .limit(1);
    return row;
  }

  /** One page, newest first, with the recorder's name joined in; plus the count and exact sum of all matches. */
  async list(filter: ExpenseListFilter): Promise<ExpensePage> {
    const conditions: SQL[] = [];
    if (filter.category !== undefined) conditions.push(eq(expenses.category, filter.category));
    if (filter.from !== undefined) conditions.push(gte(expenses.date, filter.from));
    if (filter.to !== undefined) conditions.push(lte(expenses.date, filter.to));
    const where = conditions.length ? and(...conditions) : undefined;
    const [rows, [totals]] = await Promise.all([
      this.db
        .select(withRecorder)
        .from(expenses)
        .leftJoin(memberNames, eq(memberNames.memberId, expenses.recordedBy))
        .where(where)
        .orderBy(desc(expenses.date), desc(expenses.createdAt), desc(expenses.id))
        .limit(filter.limit)
        .offset(filter.offset),
      this.db
        .select({
          total: count(),
          totalPaise: sumPaise,
        })
        .from(expenses)
        .where(where),
    ]);
    return { rows, total: totals.total, totalPaise: totals.totalPaise };
  }

  // ---- aggregates for the read-only queries other modules use ----

  async totalPaise(from: string, to: string, db: DbOrTx = this.db): Promise<number> {
    const [row] = await db.select({ totalPaise: sumPaise }).from(expenses).where(between(from, to));
    return row.totalPaise;
  }

  async totalsByMonth(from: string, to: string): Promise<MonthTotal[]> {
    const month = sql<string>`to_char(${expenses.date}, 'YYYY-MM')`;
    return this.db
      .select({ month, totalPaise: sumPaise })
      .from(expenses)
      .where(between(from, to))
      .groupBy(month)
      .orderBy(month);
  }

  async categoryTotals(from: string, to: string): Promise<CategoryTotal[]> {
    return this.db
      .select({ category: expenses.category, totalPaise: sumPaise })
      .from(expenses)
      .where(between(from, to))
      .groupBy(expenses.category)
      .orderBy(expenses.category);
  }

  /** One transaction, run again whole after a deadlock or a serialisation failure (`inTransaction`). */
  transaction<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
    return inTransaction(this.db, work);
  }

  async insert(values: NewExpenseRow, db: DbOrTx = this.db): Promise<ExpenseRow> {
    const [row] = await db.insert(expenses).values(values).returning();
    return row;
  }

  /**
   * Replaces the four fields under a row lock and returns the row before and after, so a listener learns every
   * month the change touched even when two updates race. Undefined when the expense no longer exists. `tx`: the
   * caller's transaction, which holds the lock until the change (and its audit row) commits.
   */
  async replace(
    id: string,
    values: ExpenseValues,
    tx: DbOrTx,
  ): Promise<{ before: ExpenseRow; after: ExpenseRow } | undefined> {
    const [before] = await tx.select().from(expenses).where(eq(expenses.id, id)).for('update');
    if (!before) return undefined;
    const [after] = await tx
      .update(expenses)
      .set({ ...values, updatedAt: new Date() })
      .where(eq(expenses.id, id))
      .returning();
    return { before, after };
  }

  async delete(id: string, db: DbOrTx = this.db): Promise<ExpenseRow | undefined> {
    const [row] = await db.delete(expenses).where(eq(expenses.id, id)).returning();
    return row;
  }
}
