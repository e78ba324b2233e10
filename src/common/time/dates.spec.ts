import {
  addDays,
  isCalendarDate,
  isMonth,
  isoWeekDays,
  isoWeekOf,
  isoWeeksInYear,
  localParts,
  monthBounds,
  monthsBetween,
  zonedInstant,
} from './dates';

describe('calendar dates', () => {
  it('accepts real dates only', () => {
    expect(isCalendarDate('2024-02-29')).toBe(true);
    expect(isCalendarDate('2025-02-29')).toBe(false);
    expect(isCalendarDate('2025-02-30')).toBe(false);
    expect(isCalendarDate('2025-13-01')).toBe(false);
    expect(isCalendarDate('2025-1-01')).toBe(false);
    expect(isCalendarDate('2025-04-31')).toBe(false);
    expect(isMonth('2025-12')).toBe(true);
    expect(isMonth('2025-00')).toBe(false);
  });

  it('knows month bounds and ranges', () => {
    expect(monthBounds('2024-02')).toEqual({ first: '2024-02-01', last: '2024-02-29' });
    expect(monthBounds('2025-12')).toEqual({ first: '2025-12-01', last: '2025-12-31' });
    expect(monthsBetween('2024-11', '2025-02')).toEqual(['2024-11', '2024-12', '2025-01', '2025-02']);
    expect(addDays('2024-12-31', 1)).toBe('2025-01-01');
  });

  it('follows ISO-8601 weeks', () => {
    expect(isoWeekOf('2021-01-03')).toEqual({ year: 2020, week: 53 });
    expect(isoWeekOf('2024-12-30')).toEqual({ year: 2025, week: 1 });
    expect(isoWeekDays(2025, 1)).toEqual([
      '2024-12-30',
      '2024-12-31',
      '2025-01-01',
      '2025-01-02',
      '2025-01-03',
      '2025-01-04',
      '2025-01-05',
    ]);
    expect(isoWeekDays(2020, 53)[6]).toBe('2021-01-03');
    expect(isoWeeksInYear(2020)).toBe(53);
    expect(isoWeeksInYear(2025)).toBe(52);
  });

  it('converts between instants and the mess clock', () => {
    // 18:45 UTC is 00:15 the next day in India
    expect(localParts(new Date('2025-03-31T18:45:00Z'), 'Asia/Kolkata')).toEqual({
      date: '2025-04-01',
      time: '00:15',
    });
    expect(zonedInstant('2025-04-01', '07:30', 'Asia/Kolkata').toISOString()).toBe(
      '2025-04-01T02:00:00.000Z',
    );
    expect(zonedInstant('2025-07-01', '09:00', 'America/New_York').toISOString()).toBe(
      '2025-07-01T13:00:00.000Z',
    );
  });
});

describe('localParts, asked many times a minute', () => {
  it('answers each zone and each minute for itself, and a caller cannot change a later answer', () => {
    const at = new Date('2026-11-23T18:29:59Z');
    const first = localParts(at, 'Asia/Kolkata');
    expect(first).toEqual({ date: '2026-11-23', time: '23:59' });
    first.date = 'changed';
    expect(localParts(new Date('2026-11-23T18:29:30Z'), 'Asia/Kolkata')).toEqual({
      date: '2026-11-23',
      time: '23:59',
    });
    expect(localParts(new Date('2026-11-23T18:30:00Z'), 'Asia/Kolkata')).toEqual({
      date: '2026-11-24',
      time: '00:00',
    });
    expect(localParts(at, 'UTC')).toEqual({ date: '2026-11-23', time: '18:29' });
    expect(localParts(at, 'America/St_Johns')).toEqual({ date: '2026-11-23', time: '14:59' });
  });

  it('keeps the seconds of old offsets (Monrovia was UTC−0:44:30 until 1972)', () => {
    // Within one UTC minute, local midnight: 00:44:20Z is 23:59:50 local, 00:44:40Z is 00:00:10.
    expect(localParts(new Date('1960-01-01T00:44:20Z'), 'Africa/Monrovia').date).toBe('1959-12-31');
    expect(localParts(new Date('1960-01-01T00:44:40Z'), 'Africa/Monrovia').date).toBe('1960-01-01');
  });
});
