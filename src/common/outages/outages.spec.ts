import { Logger } from '@nestjs/common';
import { failureReason, OUTAGE_RECHECK_MS, Outages } from './outages';

describe('Outages', () => {
  let lines: string[];
  let outages: Outages;
  let databaseAnswers: boolean;

  beforeEach(() => {
    jest.useFakeTimers({ now: new Date('2026-11-25T03:00:00Z') });
    lines = [];
    for (const level of ['log', 'warn', 'error'] as const)
      jest.spyOn(Logger.prototype, level).mockImplementation((...args: unknown[]) => {
        lines.push(`${level} ${args.find((a) => typeof a === 'string')}`);
      });
    databaseAnswers = false;
    outages = new Outages();
    outages.watch('database', () =>
      databaseAnswers ? Promise.resolve() : Promise.reject(new Error('down')),
    );
  });
  afterEach(() => {
    outages.onModuleDestroy();
    jest.restoreAllMocks();
    jest.useRealTimers();
  });

  it('one line when the database goes, a count every 30 s while it stays away, one line when it is back', async () => {
    outages.down('database', 'ECONNREFUSED', 'a request');
    for (let second = 0; second < 75; second += 1) {
      outages.down('database', 'ECONNREFUSED', 'a request');
      await jest.advanceTimersByTimeAsync(1_000);
    }
    databaseAnswers = true;
    await jest.advanceTimersByTimeAsync(OUTAGE_RECHECK_MS);
    expect(lines).toEqual([
      'warn The database is unavailable: ECONNREFUSED',
      'warn The database is still unavailable (30 s; 31 failures since the last report)',
      'warn The database is still unavailable (60 s; 30 failures since the last report)',
      'log The database is back after 76.0 s',
    ]);
  });

  it('notices the return from a request or probe that works, without waiting for its own check', () => {
    outages.down('Redis', 'ETIMEDOUT', 'rate limits');
    outages.up('Redis');
    outages.up('Redis');
    expect(lines).toEqual(['warn Redis is unavailable: ETIMEDOUT', 'log Redis is back after 0.0 s']);
  });

  it("a background job's failure: losing the database is the outage's, anything else the job's error", () => {
    const job = new Logger('RotationSchedule');
    const timedOut = Object.assign(new Error('Failed query: select 1\nparams: '), {
      cause: new Error('Connection terminated due to connection timeout'),
    });
    outages.jobFailed(timedOut, 'the weekly menu schedule', job, 'Publishing the weekly menu failed');
    outages.jobFailed(timedOut, 'the notification schedules', job, 'Scheduled notifications failed');
    outages.jobFailed(
      new Error('menu has no week 3'),
      'the weekly menu schedule',
      job,
      'Publishing the weekly menu failed',
    );
    expect(lines).toEqual([
      'warn The database is unavailable: Connection terminated due to connection timeout',
      'error Publishing the weekly menu failed',
    ]);
  });

  it('says why without a query text', () => {
    const driver = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const wrapped = Object.assign(new Error('Failed query: select 1\nparams: '), { cause: driver });
    expect(failureReason(wrapped)).toBe('ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432');
  });
});
