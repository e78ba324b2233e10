import { percentile, RequestMetrics } from './request-metrics';

describe('RequestMetrics', () => {
  it('summarises the last minute only', () => {
    const metrics = new RequestMetrics(100, 60_000);
    const now = 1_000_000;
    metrics.record(999, 500, now - 61_000); // outside the window
    for (let i = 1; i <= 100 - 1; i += 1) metrics.record(i, i === 50 ? 503 : 200, now - 1_000);
    const snap = metrics.snapshot(now);
    expect(snap.avgResponseTime).toBe(50);
    expect(snap.p95ResponseTime).toBe(95);
    expect(snap.p99ResponseTime).toBe(99);
    expect(snap.errorRate).toBeCloseTo(1 / 99, 4);
  });

  it('keeps memory bounded by overwriting the oldest samples', () => {
    const metrics = new RequestMetrics(10, 60_000);
    const now = Date.now();
    for (let i = 0; i < 25; i += 1) metrics.record(i, 200, now);
    const snap = metrics.snapshot(now);
    expect(snap.avgResponseTime).toBe(19.5); // 15..24
  });

  it('answers zeros before any request', () => {
    expect(new RequestMetrics().snapshot()).toEqual({
      avgResponseTime: 0,
      p95ResponseTime: 0,
      p99ResponseTime: 0,
      requestsPerSecond: 0,
      errorRate: 0,
    });
  });

  it('uses nearest-rank percentiles', () => {
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(percentile([1, 2, 3, 4], 0.95)).toBe(4);
    expect(percentile([], 0.95)).toBe(0);
  });
});
