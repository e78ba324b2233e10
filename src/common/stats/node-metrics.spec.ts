import { collectDefaultMetrics, Registry } from 'prom-client';
import { nodeMetrics } from './node-metrics';

/** The series names prom-client's collectDefaultMetrics would register (read from its modules, none started). */
function defaultMetricNames(): string[] {
  return collectDefaultMetrics.metricsList.flatMap(
    (name) =>
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      (require(`prom-client/lib/metrics/${name}`) as { metricNames: string[] }).metricNames,
  );
}

describe('nodeMetrics', () => {
  it("exposes every one of prom-client's default series, and the event loop delay figures", async () => {
    const registry = new Registry();
    const node = nodeMetrics(registry);
    try {
      const names = registry.getMetricsAsArray().map((m) => m.name);
      expect(names.sort()).toEqual(defaultMetricNames().sort());
      await new Promise((resolve) => setTimeout(resolve, 30));
      // Work until the process has used user CPU since the series began (a quiet runner may not in 30 ms).
      const before = process.cpuUsage().user;
      while (process.cpuUsage().user === before) JSON.stringify(Array.from({ length: 1000 }, (_, i) => i));
      const scraped = await registry.getMetricsAsJSON();
      const value = (name: string) => scraped.find((m) => m.name === name)?.values[0]?.value;
      expect(value('nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
      expect(value('nodejs_eventloop_lag_p99_seconds')).toBeGreaterThan(0);
      expect(value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    } finally {
      node.stop();
    }
  });

  it('still answers a scrape once stopped', async () => {
    const registry = new Registry();
    nodeMetrics(registry).stop();
    await expect(registry.metrics()).resolves.toContain('nodejs_eventloop_lag_seconds');
  });
});
