import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { CreateMealDto, ListMealsQuery } from './meal.requests';

const valid = { date: '2025-03-14', mealType: 'Lunch', dishes: ['Rice', 'Dal'], notes: '' };

function badFields(cls: new () => object, plain: object): string[] {
  const errors = validateSync(plainToInstance(cls, plain), {
    whitelist: true,
    forbidNonWhitelisted: true,
    stopAtFirstError: true,
  });
  return errors.map((e) => e.property).sort();
}

describe('CreateMealDto', () => {
  it('accepts a menu and trims each dish', () => {
    expect(badFields(CreateMealDto, valid)).toEqual([]);
    expect(badFields(CreateMealDto, { ...valid, notes: undefined })).toEqual([]);
    expect(plainToInstance(CreateMealDto, { ...valid, dishes: ['  Rice ', 'Dal\n'] }).dishes).toEqual([
      'Rice',
      'Dal',
    ]);
  });

  it.each([
    ['no dishes', []],
    ['a blank dish', ['Rice', '   ']],
    ['a dish that is not a string', ['Rice', 3]],
    ['a dish too long', ['x'.repeat(101)]],
    ['too many dishes', Array.from({ length: 31 }, (_, i) => `Dish ${i}`)],
    ['dishes as a string', 'Rice, Dal'],
  ])('refuses %s', (_case, dishes) => {
    expect(badFields(CreateMealDto, { ...valid, dishes })).toEqual(['dishes']);
  });

  it('accepts 30 dishes of 100 characters', () => {
    const dishes = Array.from({ length: 30 }, (_, i) => `${i}`.padEnd(100, 'x'));
    expect(badFields(CreateMealDto, { ...valid, dishes })).toEqual([]);
  });

  it('refuses an impossible date, a blank meal type, long notes and unknown fields', () => {
    expect(badFields(CreateMealDto, { ...valid, date: '2025-02-30' })).toEqual(['date']);
    expect(badFields(CreateMealDto, { ...valid, mealType: ' ' })).toEqual(['mealType']);
    expect(badFields(CreateMealDto, { ...valid, notes: 'x'.repeat(501) })).toEqual(['notes']);
    expect(badFields(CreateMealDto, { ...valid, createdBy: 'x' })).toEqual(['createdBy']);
  });
});

describe('ListMealsQuery', () => {
  it('takes week numbers 1 to 53 and four-digit years', () => {
    expect(badFields(ListMealsQuery, { week: '1', year: '2025' })).toEqual([]);
    expect(badFields(ListMealsQuery, { week: '53' })).toEqual([]);
    expect(badFields(ListMealsQuery, { week: '0' })).toEqual(['week']);
    expect(badFields(ListMealsQuery, { week: '54' })).toEqual(['week']);
    expect(badFields(ListMealsQuery, { week: '1.5' })).toEqual(['week']);
    expect(badFields(ListMealsQuery, { week: 'x', year: '99999' })).toEqual(['week', 'year']);
  });
});
