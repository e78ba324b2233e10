import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { PrometheusMetrics } from '../../common/stats/prometheus';
import { CacheStats, JobQueueStats, RateLimitStats } from '../../common/stats/service-stats';
import { AppConfig } from '../../config/app-config';
import { Database } from '../../database/database';

/**
 * The scrape-time numbers of /api/metrics/prometheus: the database pool, the job queue, the analytics cache and the
 * rate limiter. Nothing here runs per request. The job counts are one grouped query per scrape, bounded by
 * READY_TIMEOUT_MS: a database that does not answer leaves those series out of that scrape (the scrape itself still
 * answers) and `mess_job_queue_up` says 0.
 */
@Injectable()
export class PrometheusCollectors implements OnModuleInit {
  private readonly logger = new Logger('Metrics');
  private failing = false;

  constructor(
    private readonly metrics: PrometheusMetrics,
    private readonly config: AppConfig,
    private readonly database: Database,
    private readonly jobs: JobQueueStats,
    private readonly cache: CacheStats,
    private readonly rateLimits: RateLimitStats,
  ) {}

  onModuleInit(): void {
    const m = this.metrics;
    const engine = this.database.kind;
    const pool = (read: (stats: ReturnType<Database['poolStats']>) => number) => () =>
      read(this.database.poolStats());
    for (const [name, help, value] of [
      [
        'mess_db_pool_in_use',
        'Database connections checked out (embedded: its one connection)',
        pool((p) => p.total - p.idle),
      ],
      ['mess_db_pool_idle', 'Open database connections waiting in the pool', pool((p) => p.idle)],
      ['mess_db_pool_waiting', 'Callers waiting for a database connection', pool((p) => p.waiting)],
      [
        'mess_db_pool_max',
        'The most database connections the pool opens (DB_POOL_MAX; embedded: 1)',
        pool((p) => p.max),
      ],
    ] as const)
      m.gauge(name, help, ['engine'], (gauge) => gauge.set({ engine }, value()));

    let up = 1;
    m.gauge(
      'mess_job_queue_jobs',
      'Notification delivery jobs by state: queued, retrying, failed (gave up), sent',
      ['state'],
      async (gauge) => {
        gauge.reset();
        const counts = await this.jobCounts();
        up = counts ? 1 : 0;
        if (counts) for (const [state, n] of Object.entries(counts)) gauge.set({ state }, n);
      },
    );
    m.gauge('mess_job_queue_up', '1 when the last scrape could read the job counts, else 0', [], (gauge) =>
      gauge.set(up),
    );

    m.counterFrom('mess_cache_hits_total', 'Analytics cache hits', () => this.cache.hits);
    m.counterFrom('mess_cache_misses_total', 'Analytics cache misses', () => this.cache.misses);
    m.counterFrom(
      'mess_rate_limit_blocked_total',
      'Requests refused with 429 by the rate limiter',
      () => this.rateLimits.blockedRequests,
    );
    m.counterFrom(
      'mess_rate_limit_checked_total',
      'Requests the rate limiter counted',
      () => this.rateLimits.totalRequests,
    );
  }

  private async jobCounts() {
    let timer: NodeJS.Timeout | undefined;
    try {
      const counts = await Promise.race([
        this.jobs.statusCounts(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timed out')), this.config.readyTimeoutMs);
        }),
      ]);
      this.failing = false;
      return counts;
    } catch (error) {
      if (!this.failing)
        this.logger.warn(`Job counts unavailable for the metrics: ${(error as Error).message}`);
      this.failing = true;
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }
}
