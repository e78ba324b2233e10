import { expenseEvent } from './expense-events';
import type { ExpenseRow } from './expenses.schema';

const row: ExpenseRow = {
  id: 'e1',
  messId: '00000000-0000-4000-8000-000000000001',
  category: 'Gas',
  amountPaise: 125050,
  description: '',
  date: '2025-04-01',
  recordedBy: 'u1',
  createdAt: new Date('2025-04-01T10:00:00Z'),
  updatedAt: new Date('2025-04-01T10:00:00Z'),
};

describe('expenseEvent', () => {
  it('names the month of a new or deleted expense', () => {
    expect(expenseEvent(row, 'u1')).toEqual({
      expenseId: 'e1',
      months: ['2025-04'],
      date: '2025-04-01',
      category: 'Gas',
      amountPaise: 125050,
      recordedBy: 'u1',
      actorId: 'u1',
    });
  });

  it('names both months, the old first, when an update moved the expense', () => {
    expect(expenseEvent(row, 'admin', '2025-03-31').months).toEqual(['2025-03', '2025-04']);
    expect(expenseEvent(row, 'admin', '2024-12-31').months).toEqual(['2024-12', '2025-04']);
  });

  it('names one month when the update stayed inside it', () => {
    expect(expenseEvent(row, 'admin', '2025-04-30').months).toEqual(['2025-04']);
  });
});
