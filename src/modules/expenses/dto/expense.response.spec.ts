import type { ExpenseRow } from '../expenses.schema';
import { toExpenseResponse } from './expense.response';

const row: ExpenseRow = {
  id: 'e1',
  messId: '00000000-0000-4000-8000-000000000001',
  category: 'Vegetables',
  amountPaise: 30,
  description: 'Coriander',
  date: '2025-03-14',
  recordedBy: 'u1',
  createdAt: new Date('2025-03-14T10:00:00Z'),
  updatedAt: new Date('2025-03-15T11:30:00Z'),
};

describe('toExpenseResponse', () => {
  it('speaks rupees, nests the recorder and writes timestamps in ISO 8601', () => {
    expect(toExpenseResponse(row, 'Ravi Kumar')).toEqual({
      _id: 'e1',
      category: 'Vegetables',
      amount: 0.3,
      description: 'Coriander',
      date: '2025-03-14',
      recordedBy: { _id: 'u1', fullName: 'Ravi Kumar' },
      createdAt: '2025-03-14T10:00:00.000Z',
      updatedAt: '2025-03-15T11:30:00.000Z',
    });
  });

  it('converts every paisa exactly', () => {
    for (const [paise, rupees] of [
      [1, 0.01],
      [10, 0.1],
      [125050, 1250.5],
      [1_000_000_000, 10_000_000],
      [999_999_999, 9_999_999.99],
    ]) {
      expect(toExpenseResponse({ ...row, amountPaise: paise }, null).amount).toBe(rupees);
    }
  });

  it('keeps the shape when the recorder is gone', () => {
    expect(toExpenseResponse(row, null).recordedBy).toEqual({ _id: 'u1', fullName: '' });
  });
});
