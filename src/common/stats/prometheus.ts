import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Counter, Gauge, type Metric, Registry } from 'prom-client';
import { nodeMetrics } from './node-metrics';

/** Request duration buckets, seconds: from a cached read (a few ms) to a slow month close. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The route label of a request no route matched (a 404 of an unknown path): never the raw URL. */
export const UNMATCHED_ROUTE = 'unmatched';

const DURATION_NAME = 'mess_http_request_duration_seconds';

/** One series of the request histogram: counts per bucket (not yet cumulative; the last slot is +Inf), sum, count. */
class DurationSeries {
  readonly counts = new Float64Array(DURATION_BUCKETS.length + 1);
  sum = 0;
  count = 0;
  constructor(readonly labels: { method: string; route: string; status: string }) {}
}

/**
 * The Prometheus registry of one running service (`GET /api/metrics/prometheus`), its own rather than prom-client's
 * global one, so that two apps in one process (the tests) never share series. What happens per request is cheap:
 * a counter for requests in flight, and one histogram observation into a series found in nested maps by route,
 * method and status: a few map look-ups and three additions, no allocation (prom-client's own Histogram builds a
 * label key string on every observation, about 10× the cost; see the README's Prometheus paragraph). Everything else is read when Prometheus scrapes:
 * collectors registered by the modules that own the numbers (database pool, job queue, cache, rate limiter). Node's
 * and the process's own figures come from nodeMetrics, whose event loop monitor and GC observer stop with the app.
 */
@Injectable()
export class PrometheusMetrics implements OnModuleDestroy {
  readonly registry = new Registry();
  private readonly node = nodeMetrics(this.registry);
  private inFlight = 0;
  /** route → method → status → series. Route templates, methods and statuses are bounded, so is this. */
  private readonly series = new Map<string, Map<string, Map<number, DurationSeries>>>();
  /** Notification deliveries by type, channel and outcome (`sent`, `failed`, `retry`, `check`). */
  readonly deliveries: Counter<'type' | 'channel' | 'outcome'>;
  /** Notifications delivered through their fallback channel, by type. */
  readonly fallbacks: Counter<'type'>;

  constructor() {
    const registers = [this.registry];
    // The request histogram, exposed in prom-client's format by a metric of our own (see DurationSeries).
    this.registry.registerMetric({
      name: DURATION_NAME,
      help: 'Time to answer a request, by method, route template and status',
      type: 'histogram',
      get: async () => ({
        name: DURATION_NAME,
        help: 'Time to answer a request, by method, route template and status',
        type: 'histogram',
        aggregator: 'sum',
        values: this.durationValues(),
      }),
    } as unknown as Metric);
    const inFlight = () => this.inFlight;
    new Gauge({
      name: 'mess_http_requests_in_flight',
      help: 'Requests received and not yet answered',
      registers,
      collect() {
        this.set(inFlight());
      },
    });
    this.deliveries = new Counter({
      name: 'mess_notification_deliveries_total',
      help: 'Notification delivery attempts by type, channel and outcome (sent, failed, retry, check)',
      labelNames: ['type', 'channel', 'outcome'],
      registers,
    });
    this.fallbacks = new Counter({
      name: 'mess_notification_fallbacks_total',
      help: 'Notifications delivered through their fallback channel, by type',
      labelNames: ['type'],
      registers,
    });
  }

  onModuleDestroy(): void {
    this.node.stop();
  }

  requestStarted(): void {
    this.inFlight += 1;
  }

  /** Once per request, when its response closes (answered or abandoned by the client). */
  requestClosed(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
  }

  /** `route` is the matched route's template (`/api/expenses/:id`), or undefined when none matched. */
  requestFinished(method: string, route: string | undefined, status: number, seconds: number): void {
    const template = route ?? UNMATCHED_ROUTE;
    let byMethod = this.series.get(template);
    if (!byMethod) this.series.set(template, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series)
      byStatus.set(
        status,
        (series = new DurationSeries({ method, route: template, status: String(status) })),
      );
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]) bucket += 1;
    series.counts[bucket] += 1;
    series.sum += seconds;
    series.count += 1;
  }

  /** The histogram's samples as prom-client formats them: cumulative `_bucket`s with `le`, `_sum`, `_count`. */
  private durationValues() {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const byMethod of this.series.values())
      for (const byStatus of byMethod.values())
        for (const series of byStatus.values()) {
          let cumulative = 0;
          DURATION_BUCKETS.forEach((bound, i) => {
            cumulative += series.counts[i];
            values.push({
              labels: { ...series.labels, le: bound },
              value: cumulative,
              metricName: `${DURATION_NAME}_bucket`,
            });
          });
          values.push({
            labels: { ...series.labels, le: '+Inf' },
            value: series.count,
            metricName: `${DURATION_NAME}_bucket`,
          });
          values.push({ labels: series.labels, value: series.sum, metricName: `${DURATION_NAME}_sum` });
          values.push({ labels: series.labels, value: series.count, metricName: `${DURATION_NAME}_count` });
        }
    return values;
  }

  /** A gauge whose values are read at scrape time; `read` sets them (it may be async, it must not throw). */
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    read: (gauge: Gauge<L>) => void | Promise<void>,
  ): void {
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        await read(this);
      },
    });
  }

  /** A counter mirrored from a running total kept elsewhere (it only grows while the process runs). */
  counterFrom(name: string, help: string, total: () => number): void {
    let reported = 0;
    new Counter({
      name,
      help,
      registers: [this.registry],
      collect() {
        const now = total();
        if (now > reported) this.inc(now - reported);
        reported = Math.max(reported, now);
      },
    });
  }

  async exposition(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
