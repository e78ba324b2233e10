import { can } from '../../common/auth/permissions';
import { Injectable } from '@nestjs/common';
import { type CurrentMember } from '../../common/auth/auth.decorators';
import { badRequest, forbidden, notFound } from '../../common/errors/api-error';
import { DomainEventBus } from '../../common/events/domain-event-bus';
import { toPaise } from '../../common/money/money';
import { AuditTrail } from '../audit-trail';
import { MessConfigService } from '../mess-config';
import { ExpenseBodyDto, ListExpensesQuery } from './dto/expense.requests';
import { expenseEvent } from './expense-events';
import {
  ExpensePage,
  ExpensesRepository,
  ExpenseValues,
  type ExpenseWithRecorder,
} from './expenses.repository';
import type { ExpenseRow } from './expenses.schema';
import './expenses.errors';

/** Expenses: recording, reading, and changes by their recorder or an admin. Owner of the `expenses` table. */
@Injectable()
export class ExpensesService {
  constructor(
    private readonly repository: ExpensesRepository,
    private readonly messConfig: MessConfigService,
    private readonly audit: AuditTrail,
    private readonly events: DomainEventBus,
  ) {}

  async list(query: ListExpensesQuery): Promise<ExpensePage> {
    if (query.startDate && query.endDate && query.startDate > query.endDate) {
      throw badRequest('Validation failed', [
        { field: 'endDate', message: 'endDate must not be before startDate' },
      ]);
    }
    return this.repository.list({
      category: query.category,
      from: query.startDate,
      to: query.endDate,
      limit: query.limit,
      offset: (query.page - 1) * query.limit,
    });
  }

  async get(id: string): Promise<ExpenseWithRecorder> {
    const found = await this.repository.findById(id);
    if (!found) throw notFound('Expense not found');
    return found;
  }

  async record(caller: CurrentMember, body: ExpenseBodyDto): Promise<ExpenseWithRecorder> {
    const values = await this.values(body);
    const expense = await this.repository.transaction(async (tx) => {
      const row = await this.repository.insert({ ...values, recordedBy: caller.id }, tx);
      await this.audit.record(tx, { ...this.auditOf(caller, 'created', row.id), after: auditSnapshot(row) });
      // Durable (EXPENSE_ADDED, BUDGET_EXCEEDED): written with the expense, into the outbox.
      await this.events.publishWithin(tx, 'expense.recorded', expenseEvent(row, caller.id));
      return row;
    });
    return { expense, recorderName: caller.fullName };
  }

  /** Input is checked first (400), then existence (404), then ownership (403). */
  async replace(caller: CurrentMember, id: string, body: ExpenseBodyDto): Promise<ExpenseWithRecorder> {
    const values = await this.values(body);
    const { recorderName } = await this.getChangeableBy(caller, id);
    const changed = await this.repository.transaction(async (tx) => {
      const result = await this.repository.replace(id, values, tx);
      if (result) {
        await this.audit.record(tx, {
          ...this.auditOf(caller, 'changed', id),
          before: auditSnapshot(result.before),
          after: auditSnapshot(result.after),
        });
        // Durable (BUDGET_EXCEEDED): written with the change, into the outbox.
        await this.events.publishWithin(
          tx,
          'expense.changed',
          expenseEvent(result.after, caller.id, result.before.date),
        );
      }
      return result;
    });
    if (!changed) throw notFound('Expense not found');
    return { expense: changed.after, recorderName };
  }

  async remove(caller: CurrentMember, id: string): Promise<void> {
    await this.getChangeableBy(caller, id);
    const deleted = await this.repository.transaction(async (tx) => {
      const row = await this.repository.delete(id, tx);
      if (row) {
        await this.audit.record(tx, { ...this.auditOf(caller, 'deleted', id), before: auditSnapshot(row) });
      }
      return row;
    });
    if (!deleted) throw notFound('Expense not found');
    this.events.publish('expense.deleted', expenseEvent(deleted, caller.id));
  }

  private auditOf(caller: CurrentMember, action: 'created' | 'changed' | 'deleted', id: string) {
    return { actorId: caller.id, action, entity: 'expense' as const, entityId: id };
  }

  /**
   * An admin, or the recorder while they still hold a role that records expenses: a member demoted to student
   * keeps no power over what they recorded as manager or treasurer. The recorder never changes and the caller's
   * role is read from the database on this request, so checking before the write is as good as during.
   */
  private async getChangeableBy(caller: CurrentMember, id: string): Promise<ExpenseWithRecorder> {
    const found = await this.get(id);
    if (can(caller, 'expenses.edit-any')) return found;
    if (found.expense.recordedBy !== caller.id) throw forbidden('You can only change your own expenses');
    if (!can(caller, 'expenses.record')) {
      throw forbidden('Only a manager or treasurer can change the expenses they recorded');
    }
    return found;
  }

  private async values(body: ExpenseBodyDto): Promise<ExpenseValues> {
    await this.messConfig.assertExpenseCategory(body.category);
    return {
      category: body.category,
      // the DTO has already refused anything that is not whole paise
      amountPaise: toPaise(body.amount)!,
      description: body.description ?? '',
      date: body.date,
    };
  }
}

/** An expense as the audit trail keeps it: its fields, money in paise. */
const auditSnapshot = (row: ExpenseRow) => ({
  category: row.category,
  amountPaise: row.amountPaise,
  description: row.description,
  date: row.date,
  recordedBy: row.recordedBy,
});
