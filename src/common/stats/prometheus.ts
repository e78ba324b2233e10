import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Request duration buckets, seconds: from a cached read (a few ms) to a slow month close. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The route label of a request no route matched (a 404 of an unknown path): never the raw URL. */
export const UNMATCHED_ROUTE = 'unmatched';

type Observer = { observe(value: number): void };

/**
 * The Prometheus registry of one running service (`GET /api/metrics/prometheus`), its own rather than prom-client's
 * global one, so that two apps in one process (the tests) never share series. What happens per request is cheap:
 * a counter for requests in flight, and one histogram observation through a child found in a map by route, method
 * and status (no label object, no string built per request). Everything else is read when Prometheus scrapes:
 * collectors registered by the modules that own the numbers (database pool, job queue, cache, rate limiter).
 */
@Injectable()
export class PrometheusMetrics {
  readonly registry = new Registry();
  private inFlight = 0;
  private readonly duration: Histogram<'method' | 'route' | 'status'>;
  /** route → method → status → histogram child. Route templates and methods are bounded, so is this. */
  private readonly observers = new Map<string, Map<string, Map<number, Observer>>>();
  /** Notification deliveries by type, channel and outcome (`sent`, `failed`, `retry`, `check`). */
  readonly deliveries: Counter<'type' | 'channel' | 'outcome'>;
  /** Notifications delivered through their fallback channel, by type. */
  readonly fallbacks: Counter<'type'>;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.duration = new Histogram({
      name: 'mess_http_request_duration_seconds',
      help: 'Time to answer a request, by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: DURATION_BUCKETS,
      registers,
    });
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

  requestStarted(): void {
    this.inFlight += 1;
  }

  /** `route` is the matched route's template (`/api/expenses/:id`), or undefined when none matched. */
  requestFinished(method: string, route: string | undefined, status: number, seconds: number): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    const template = route ?? UNMATCHED_ROUTE;
    let byMethod = this.observers.get(template);
    if (!byMethod) this.observers.set(template, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let observer = byStatus.get(status);
    if (!observer) {
      observer = this.duration.labels({ method, route: template, status: String(status) });
      byStatus.set(status, observer);
    }
    observer.observe(seconds);
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
