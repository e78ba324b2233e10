import { messFieldProblems } from './mess-field-rules';

describe('messFieldProblems', () => {
  const fields = (body: Record<string, unknown>, refused: string[] = [], partial = false) =>
    messFieldProblems(body, new Set(refused), partial).map((d) => d.field);

  it('names each repeat, a daily rate missing with the daily method, and an end before its start', () => {
    expect(
      fields({
        chargeMethod: 'daily',
        rebateBands: [
          { minDays: 2, percent: 50 },
          { minDays: 2, percent: 60 },
        ],
        termStartMonths: [1, 7, 1],
        mealTimes: [
          { name: 'Lunch', startTime: '13:00', endTime: '12:00' },
          { name: ' LUNCH ', startTime: '19:00', endTime: '20:00' },
        ],
        expenseCategories: ['Gas', 'gas'],
        extraItems: [
          { name: 'Egg', price: 10 },
          { name: 'egg', price: 12 },
        ],
      }),
    ).toEqual([
      'dailyRate',
      'rebateBands.1.minDays',
      'termStartMonths.2',
      'mealTimes.0.endTime',
      'mealTimes.1.name',
      'expenseCategories.1',
      'extraItems.1.name',
    ]);
  });

  it('leaves alone what the field rules refused (the field or its parent) and shapes it does not know', () => {
    const body = {
      chargeMethod: 'daily',
      rebateBands: [{ minDays: 2 }, { minDays: 2 }, { minDays: 'x' }, null],
      termStartMonths: [4, 4],
      mealTimes: 'none',
      expenseCategories: [1, 1],
    };
    expect(fields(body, ['chargeMethod', 'rebateBands.1', 'termStartMonths'])).toEqual([
      'expenseCategories.1',
    ]);
    expect(fields(body, ['rebateBands'], true)).toEqual(['termStartMonths.1', 'expenseCategories.1']);
  });
});
