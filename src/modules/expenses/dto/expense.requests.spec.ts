import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { MAX_AMOUNT_RUPEES } from '../../../common/money/money';
import { CreateExpenseDto, ListExpensesQuery } from './expense.requests';

const valid = { category: 'Gas', amount: 1250.5, description: ' Cylinder ', date: '2025-03-14' };

function badFields(cls: new () => object, plain: object): string[] {
  const errors = validateSync(plainToInstance(cls, plain), {
    whitelist: true,
    forbidNonWhitelisted: true,
    stopAtFirstError: true,
  });
  return errors.map((e) => e.property).sort();
}

describe('CreateExpenseDto', () => {
  it('accepts a valid expense and trims the text', () => {
    expect(badFields(CreateExpenseDto, valid)).toEqual([]);
    expect(plainToInstance(CreateExpenseDto, valid).description).toBe('Cylinder');
    expect(badFields(CreateExpenseDto, { ...valid, description: undefined })).toEqual([]);
  });

  it.each([0.01, 0.1, 0.2, 1, 19.99, MAX_AMOUNT_RUPEES, 1.1 * 3])('accepts the amount %p', (amount) => {
    expect(badFields(CreateExpenseDto, { ...valid, amount })).toEqual([]);
  });

  it.each([0, -1, -0.01, 1.005, 0.001, 1e-7, MAX_AMOUNT_RUPEES + 0.01, '100', null, NaN, Infinity])(
    'refuses the amount %p',
    (amount) => {
      expect(badFields(CreateExpenseDto, { ...valid, amount })).toEqual(['amount']);
    },
  );

  it.each(['2025-02-30', '2025-2-3', '14-03-2025', '', 20250314])('refuses the date %p', (date) => {
    expect(badFields(CreateExpenseDto, { ...valid, date })).toEqual(['date']);
  });

  it('refuses a blank category, a long description and unknown fields', () => {
    expect(badFields(CreateExpenseDto, { ...valid, category: '  ' })).toEqual(['category']);
    expect(badFields(CreateExpenseDto, { ...valid, description: 'x'.repeat(501) })).toEqual(['description']);
    expect(badFields(CreateExpenseDto, { ...valid, recordedBy: 'someone' })).toEqual(['recordedBy']);
  });
});

describe('ListExpensesQuery', () => {
  it('defaults to the first page of ten', () => {
    const query = plainToInstance(ListExpensesQuery, {});
    expect([query.page, query.limit]).toEqual([1, 10]);
    expect(badFields(ListExpensesQuery, {})).toEqual([]);
  });

  it('caps the page size at 100', () => {
    expect(badFields(ListExpensesQuery, { limit: '100' })).toEqual([]);
    expect(badFields(ListExpensesQuery, { limit: '101' })).toEqual(['limit']);
    expect(badFields(ListExpensesQuery, { limit: '0', page: '0' })).toEqual(['limit', 'page']);
    expect(badFields(ListExpensesQuery, { page: 'two' })).toEqual(['page']);
  });
});
