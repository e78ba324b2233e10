import { lastScheduled } from './embedded-backups';

describe('the daily backup’s slot', () => {
  it('is today’s time once it has passed in the mess time zone, else yesterday’s', () => {
    // 03:30 in Kolkata is 22:00 UTC the day before.
    expect(lastScheduled(new Date('2026-12-01T22:00:00Z'), '03:30', 'Asia/Kolkata').toISOString()).toBe(
      '2026-12-01T22:00:00.000Z',
    );
    expect(lastScheduled(new Date('2026-12-01T21:59:00Z'), '03:30', 'Asia/Kolkata').toISOString()).toBe(
      '2026-11-30T22:00:00.000Z',
    );
    expect(lastScheduled(new Date('2026-12-02T12:00:00Z'), '03:30', 'UTC').toISOString()).toBe(
      '2026-12-02T03:30:00.000Z',
    );
  });
});
