import { summaryStatus } from './summary-status';

const jobs = (failed: number, failedRecently: number) => ({
  pending: 2,
  failed,
  processed: 40,
  failedRecently,
});

describe('the health summary status', () => {
  it('is healthy with the database up and no recent failed job, old failures notwithstanding', () => {
    expect(summaryStatus(true, jobs(0, 0))).toEqual({ status: 'healthy', reasons: [] });
    expect(summaryStatus(true, jobs(65, 0))).toEqual({ status: 'healthy', reasons: [] });
  });

  it('is degraded when a delivery failed within the window, and says how many', () => {
    expect(summaryStatus(true, jobs(65, 1))).toEqual({
      status: 'degraded',
      reasons: ['1 notification delivery failed in the last 24 hours'],
    });
    expect(summaryStatus(true, jobs(65, 65)).reasons).toEqual([
      '65 notification deliveries failed in the last 24 hours',
    ]);
  });

  it('is unhealthy when the database does not answer, listing every reason', () => {
    expect(summaryStatus(false, jobs(3, 3))).toEqual({
      status: 'unhealthy',
      reasons: ['The database does not answer', '3 notification deliveries failed in the last 24 hours'],
    });
  });
});
