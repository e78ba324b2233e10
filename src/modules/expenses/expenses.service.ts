import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { type CurrentMember } from '../../common/auth/auth.decorators';
import { badRequest, forbidden, notFound } from '../../common/errors/api-error';
import { DomainEvents } from '../../common/events/domain-events';
import { publishDomainEvent } from '../../common/events/publish';
import { toPaise } from '../../common/money/money';
import { MessConfigService } from '../mess-config/mess-config.service';
import { ExpenseBodyDto, ListExpensesQuery } from './dto/expense.requests';
import { expenseEvent } from './expense-events';
import {
  ExpensePage,
  ExpensesRepository,
  ExpenseValues,
  type ExpenseWithRecorder,
} from './expenses.repository';
import './expenses.errors';

/** Expenses: recording, reading, and changes by their recorder or an admin. Owner of the `expenses` table. */
@Injectable()
export class ExpensesService {
  constructor(
    private readonly repository: ExpensesRepository,
    private readonly messConfig: MessConfigService,
    private readonly events: EventEmitter2,
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
    const expense = await this.repository.insert({ ...values, recordedBy: caller.id });
    publishDomainEvent(this.events, DomainEvents.ExpenseRecorded, expenseEvent(expense, caller.id));
    return { expense, recorderName: caller.fullName };
  }

  /** Input is checked first (400), then existence (404), then ownership (403). */
  async replace(caller: CurrentMember, id: string, body: ExpenseBodyDto): Promise<ExpenseWithRecorder> {
    const values = await this.values(body);
    const { recorderName } = await this.getChangeableBy(caller, id);
    const changed = await this.repository.replace(id, values);
    if (!changed) throw notFound('Expense not found');
    publishDomainEvent(
      this.events,
      DomainEvents.ExpenseChanged,
      expenseEvent(changed.after, caller.id, changed.before.date),
    );
    return { expense: changed.after, recorderName };
  }

  async remove(caller: CurrentMember, id: string): Promise<void> {
    await this.getChangeableBy(caller, id);
    const deleted = await this.repository.delete(id);
    if (!deleted) throw notFound('Expense not found');
    publishDomainEvent(this.events, DomainEvents.ExpenseDeleted, expenseEvent(deleted, caller.id));
  }

  /** The recorder never changes, so checking it before the write is as good as checking it during. */
  private async getChangeableBy(caller: CurrentMember, id: string): Promise<ExpenseWithRecorder> {
    const found = await this.get(id);
    if (found.expense.recordedBy !== caller.id && caller.role !== 'admin') {
      throw forbidden('You can only change your own expenses');
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
