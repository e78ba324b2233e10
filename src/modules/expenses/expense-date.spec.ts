import { expenseDateProblem, latestExpenseDate } from './expense-date';

describe('how far ahead an expense may be dated', () => {
  const ist = (date: string, time: string) => new Date(`${date}T${time}:00+05:30`);

  it('is the last day of next month in the mess time zone', () => {
    expect(latestExpenseDate(ist('2026-11-27', '12:00'), 'Asia/Kolkata')).toBe('2026-12-31');
    expect(latestExpenseDate(ist('2026-12-31', '23:00'), 'Asia/Kolkata')).toBe('2027-01-31');
    expect(latestExpenseDate(ist('2027-01-15', '09:00'), 'Asia/Kolkata')).toBe('2027-02-28');
    expect(latestExpenseDate(ist('2028-01-31', '09:00'), 'Asia/Kolkata')).toBe('2028-02-29');
  });

  it('counts months in the mess time zone, not UTC: 31 March 00:30 IST is still March 30 in UTC', () => {
    const now = ist('2027-04-01', '00:30'); // 2027-03-31T19:00Z
    expect(latestExpenseDate(now, 'Asia/Kolkata')).toBe('2027-05-31');
    expect(latestExpenseDate(now, 'UTC')).toBe('2027-04-30');
  });

  it('accepts the past, today and up to the limit; names `date` and the limit after it', () => {
    const now = ist('2026-11-27', '12:00');
    for (const date of ['1999-01-01', '2026-11-27', '2026-12-15', '2026-12-31']) {
      expect(expenseDateProblem(date, now, 'Asia/Kolkata')).toBeUndefined();
    }
    for (const date of ['2027-01-01', '2062-11-27']) {
      expect(expenseDateProblem(date, now, 'Asia/Kolkata')).toEqual({
        field: 'date',
        message: 'date must not be after 2026-12-31, the end of next month',
      });
    }
  });
});
