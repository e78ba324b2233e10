import type { ExpenseEvent } from '../../common/events/event-map';
import { monthOf } from '../../common/time/dates';
import type { ExpenseRow } from './expenses.schema';

/**
 * The payload of an expense event. `previousDate` is the date before an update: when the update moved the expense
 * to another month, both months are named (the old one first), since both totals changed.
 */
export function expenseEvent(row: ExpenseRow, actorId: string, previousDate?: string): ExpenseEvent {
  const months = [...new Set([previousDate ?? row.date, row.date].map(monthOf))];
  return {
    expenseId: row.id,
    months,
    date: row.date,
    category: row.category,
    amountPaise: row.amountPaise,
    recordedBy: row.recordedBy,
    actorId,
  };
}
