import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { collectDefaultMetrics, Gauge, Histogram, type Registry } from 'prom-client';

type IntervalHistogram = ReturnType<typeof monitorEventLoopDelay>;

/** prom-client's default metrics that run between scrapes; the others only read a figure when scraped. */
const RUNNING = new Set(['eventLoopLag', 'gc']);

/** How often the event loop delay is sampled, ms (prom-client's default). */
const DELAY_RESOLUTION_MS = 10;

/** GC pause buckets, seconds (prom-client's). */
const GC_BUCKETS = [0.001, 0.01, 0.1, 1, 2, 5];

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

/** The event loop delay figures read from the monitor at each scrape, seconds: series name → reading. */
const DELAY_FIGURES: [string, string, (h: IntervalHistogram) => number][] = [
  ['min', 'Shortest event loop delay since the last scrape', (h) => h.min],
  ['max', 'Longest event loop delay since the last scrape', (h) => h.max],
  ['mean', 'Mean event loop delay since the last scrape', (h) => h.mean],
  ['stddev', 'Standard deviation of the event loop delays since the last scrape', (h) => h.stddev],
  ['p50', 'Median event loop delay since the last scrape', (h) => h.percentile(50)],
  ['p90', '90th percentile of the event loop delays since the last scrape', (h) => h.percentile(90)],
  ['p99', '99th percentile of the event loop delays since the last scrape', (h) => h.percentile(99)],
];

/**
 * Node's and the process's own figures in `registry`, under prom-client's default metric names, and `stop()`, which
 * ends what they leave running. prom-client's `collectDefaultMetrics` starts an event loop delay monitor (a timer
 * every 10 ms) and a GC observer and keeps no way to stop either: each app made and closed in one process (the tests
 * make hundreds) left both running, and the monitor's native handle, which holds the async context it was made in,
 * kept the closed app (in Jest, the test file's whole module graph) in memory for good. Those two are made here; the
 * rest (CPU, memory, file descriptors, handles, heap, version), which only read when scraped, are prom-client's own.
 */
export function nodeMetrics(registry: Registry): { stop(): void } {
  for (const name of collectDefaultMetrics.metricsList) {
    if (RUNNING.has(name)) continue;
    // prom-client keeps each default metric in lib/metrics/<name in metricsList>.js: a function of the registry.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const add = require(`prom-client/lib/metrics/${name}`) as (registry: Registry, config: object) => void;
    add(registry, {});
  }
  const registers = [registry];

  // Dropped on stop(): a reference kept here would keep the monitor, its context and the app alive (see above).
  let delay: IntervalHistogram | undefined = monitorEventLoopDelay({ resolution: DELAY_RESOLUTION_MS });
  delay.enable();
  const figures: [Gauge, (h: IntervalHistogram) => number][] = [];
  // Registered first: a scrape reads it before the figures' gauges, and it sets them and starts the next interval.
  const lag = new Gauge({
    name: 'nodejs_eventloop_lag_seconds',
    help: 'How long a callback queued at the scrape waited for the event loop, seconds',
    registers,
    async collect() {
      if (delay) {
        for (const [gauge, read] of figures) gauge.set(read(delay) / 1e9);
        delay.reset();
      }
      const start = process.hrtime.bigint();
      await new Promise((resolve) => setImmediate(resolve));
      lag.set(Number(process.hrtime.bigint() - start) / 1e9);
    },
  });
  for (const [figure, help, read] of DELAY_FIGURES)
    figures.push([new Gauge({ name: `nodejs_eventloop_lag_${figure}_seconds`, help, registers }), read]);

  const pauses = new Histogram({
    name: 'nodejs_gc_duration_seconds',
    help: 'Garbage collection pauses by kind (major, minor, incremental or weakcb), seconds',
    labelNames: ['kind'],
    buckets: GC_BUCKETS,
    registers,
  });
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = GC_KINDS[(entry as { detail?: { kind?: number } }).detail?.kind ?? -1] ?? 'other';
      pauses.observe({ kind }, entry.duration / 1000);
    }
  });
  gc.observe({ entryTypes: ['gc'] });

  return {
    stop() {
      delay?.disable();
      delay = undefined;
      gc.disconnect();
    },
  };
}
