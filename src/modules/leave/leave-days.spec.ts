import { daysPerMonth, leaveDates, overCap } from './leave-days';

describe('leave days', () => {
  it('counts every calendar day of the span, across a month end', () => {
    expect(leaveDates('2025-01-30', '2025-02-02')).toEqual([
      '2025-01-30',
      '2025-01-31',
      '2025-02-01',
      '2025-02-02',
    ]);
    expect([...daysPerMonth('2025-01-30', '2025-02-02')]).toEqual([
      ['2025-01', 2],
      ['2025-02', 2],
    ]);
  });

  it('puts the pending and approved days of a month together against the cap', () => {
    const existing = [{ from: '2025-03-01', to: '2025-03-04' }];
    expect(overCap(6, { from: '2025-03-10', to: '2025-03-11' }, existing)).toBeUndefined();
    expect(overCap(6, { from: '2025-03-10', to: '2025-03-12' }, existing)).toEqual({
      month: '2025-03',
      days: 7,
    });
    // Days of another month do not count towards this one.
    expect(
      overCap(3, { from: '2025-03-31', to: '2025-04-02' }, [{ from: '2025-02-01', to: '2025-02-28' }]),
    ).toBeUndefined();
    expect(overCap(0, { from: '2025-03-01', to: '2025-03-31' }, existing)).toBeUndefined();
  });
});
