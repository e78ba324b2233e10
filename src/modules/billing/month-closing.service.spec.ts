import { ApiError } from '../../common/errors/api-error';
import { FixedClock } from '../../common/time/clock';
import type { AppConfig } from '../../config/app-config';
import { BillingService } from './billing.service';
import { MonthClosingService } from './month-closing.service';

/** Month boundaries follow the mess's time zone, not the server's (tests run with TZ=UTC). */
describe('Billing month boundaries', () => {
  const clock = new FixedClock(new Date('2025-03-31T19:00:00Z'));
  /** Stands in for the database: reaching it means every check before it passed. */
  const repository = {
    monthTransaction: () => Promise.reject(new Error('reached the database')),
  };
  const messConfig = {
    settings: () =>
      Promise.resolve({
        chargeMethod: 'proportional',
        mealTimes: [{ name: 'Dinner', startTime: '19:30', endTime: '21:30' }],
      }),
    dailySettings: () => Promise.resolve({ dailyRatePaise: null }),
  };
  const billing = (timezone: string) =>
    new BillingService(
      repository as never,
      {} as never,
      {} as never,
      {} as never,
      messConfig as never,
      clock,
      { messTimezone: timezone } as AppConfig,
      {} as never,
      {} as never,
      {} as never,
      {} as never,
    );
  const closing = (timezone: string) => {
    const unused = {} as never;
    return new MonthClosingService(
      repository as never,
      billing(timezone),
      unused,
      unused,
      unused,
      unused,
      clock,
      { messTimezone: timezone } as AppConfig,
    );
  };

  it('defaults to the month it already is in the mess time zone', () => {
    clock.set(new Date('2025-03-31T19:00:00Z')); // 2025-04-01 00:30 in Kolkata
    expect(billing('Asia/Kolkata').resolveMonth()).toBe('2025-04');
    expect(billing('UTC').resolveMonth()).toBe('2025-03');
    clock.set(new Date('2025-03-31T18:29:59Z')); // 23:59:59 on 31 March in Kolkata
    expect(billing('Asia/Kolkata').resolveMonth()).toBe('2025-03');
    expect(billing('Asia/Kolkata').resolveMonth('2024-12')).toBe('2024-12');
  });

  it('lets a month be closed once its last meal has ended in the mess time zone, not before', async () => {
    clock.set(new Date('2025-03-31T18:00:00Z')); // 23:30 on 31 March in Kolkata
    const early = await closing('Asia/Kolkata')
      .close('2025-04', 'treasurer')
      .catch((e: unknown) => e);
    expect(early).toBeInstanceOf(ApiError);
    expect((early as ApiError).getStatus()).toBe(400);

    clock.set(new Date('2025-03-31T15:00:00Z')); // 20:30 on 31 March in Kolkata: dinner ends at 21:30
    const unfinished = await closing('Asia/Kolkata')
      .close('2025-03', 'treasurer')
      .catch((e: unknown) => e);
    expect((unfinished as ApiError).getStatus()).toBe(409);
    expect((unfinished as ApiError).error).toBe(
      'Month 2025-03 is not over: it can be closed after its last meal ends (21:30 on 2025-03-31)',
    );

    clock.set(new Date('2025-03-31T16:00:00Z')); // 21:30 on 31 March in Kolkata: the last meal has ended
    await expect(closing('Asia/Kolkata').close('2025-03', 'treasurer')).rejects.toThrow(
      'reached the database',
    );
  });
});
