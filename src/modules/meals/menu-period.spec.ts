import { ApiError } from '../../common/errors/api-error';
import { resolveMenuPeriod, sortMenus } from './menu-period';

function refusal(fn: () => unknown): { field: string; message: string } | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).getStatus()).toBe(400);
    return (error as ApiError).details?.[0];
  }
  return undefined;
}

describe('resolveMenuPeriod', () => {
  const today = '2025-03-14'; // a Friday of ISO week 11 of 2025

  it('reads one date', () => {
    expect(resolveMenuPeriod({ date: '2025-01-05' }, today)).toEqual({
      first: '2025-01-05',
      last: '2025-01-05',
    });
  });

  it('reads an ISO week of the given year, Monday to Sunday', () => {
    expect(resolveMenuPeriod({ week: 1, year: 2025 }, today)).toEqual({
      first: '2024-12-30',
      last: '2025-01-05',
    });
    expect(resolveMenuPeriod({ week: 53, year: 2020 }, today)).toEqual({
      first: '2020-12-28',
      last: '2021-01-03',
    });
  });

  it("defaults the year to today's ISO week-numbering year", () => {
    expect(resolveMenuPeriod({ week: 11 }, today)).toEqual({ first: '2025-03-10', last: '2025-03-16' });
    // 30 December 2024 is already in week 1 of 2025, so `week=1` means the week it is in
    expect(resolveMenuPeriod({ week: 1 }, '2024-12-30')).toEqual({ first: '2024-12-30', last: '2025-01-05' });
    // 1 January 2021 is still in week 53 of 2020
    expect(resolveMenuPeriod({ week: 53 }, '2021-01-01')).toEqual({
      first: '2020-12-28',
      last: '2021-01-03',
    });
  });

  it('defaults to the current week when neither date nor week is given', () => {
    expect(resolveMenuPeriod({}, today)).toEqual({ first: '2025-03-10', last: '2025-03-16' });
    expect(resolveMenuPeriod({}, '2025-03-16')).toEqual({ first: '2025-03-10', last: '2025-03-16' });
    expect(resolveMenuPeriod({}, '2025-03-17')).toEqual({ first: '2025-03-17', last: '2025-03-23' });
  });

  it('refuses week 53 of a year that has 52 weeks', () => {
    expect(refusal(() => resolveMenuPeriod({ week: 53, year: 2025 }, today))).toEqual({
      field: 'week',
      message: 'week must be from 1 to 52 in 2025',
    });
    expect(refusal(() => resolveMenuPeriod({ week: 53 }, today))?.field).toBe('week');
  });

  it('refuses date with week, and year without week', () => {
    expect(refusal(() => resolveMenuPeriod({ date: '2025-03-14', week: 11 }, today))?.field).toBe('date');
    expect(refusal(() => resolveMenuPeriod({ date: '2025-03-14', year: 2025 }, today))?.field).toBe('date');
    expect(refusal(() => resolveMenuPeriod({ year: 2025 }, today))?.field).toBe('year');
  });
});

describe('sortMenus', () => {
  const mealTimes = [
    { name: 'Dinner', startTime: '19:30' },
    { name: 'Breakfast', startTime: '07:30' },
    { name: 'Snacks', startTime: '16:30' },
    { name: 'Lunch', startTime: '12:30' },
  ];
  const menu = (date: string, mealType: string) => ({ date, mealType });

  it('orders by date, then by the time of day of the meal, unknown meal types last by name', () => {
    const sorted = sortMenus(
      [
        menu('2025-03-15', 'Breakfast'),
        menu('2025-03-14', 'Supper'),
        menu('2025-03-14', 'Dinner'),
        menu('2025-03-14', 'Brunch'),
        menu('2025-03-14', 'Snacks'),
        menu('2025-03-14', 'Breakfast'),
        menu('2025-03-14', 'Lunch'),
      ],
      mealTimes,
      (m) => m,
    );
    expect(sorted.map((m) => `${m.date} ${m.mealType}`)).toEqual([
      '2025-03-14 Breakfast',
      '2025-03-14 Lunch',
      '2025-03-14 Snacks',
      '2025-03-14 Dinner',
      '2025-03-14 Brunch',
      '2025-03-14 Supper',
      '2025-03-15 Breakfast',
    ]);
  });

  it('keeps the configured order for meals that start at the same time, and does not mutate its input', () => {
    const input = [menu('2025-03-14', 'B'), menu('2025-03-14', 'A')];
    const sorted = sortMenus(
      input,
      [
        { name: 'B', startTime: '08:00' },
        { name: 'A', startTime: '08:00' },
      ],
      (m) => m,
    );
    expect(sorted.map((m) => m.mealType)).toEqual(['B', 'A']);
    expect(input.map((m) => m.mealType)).toEqual(['B', 'A']);
  });
});
