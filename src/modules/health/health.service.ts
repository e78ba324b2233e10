import { Injectable } from '@nestjs/common';
import { HealthCheckService } from '@nestjs/terminus';
import { timingSafeEqual } from 'node:crypto';
import { RawBodyError, unauthorized } from '../../common/errors/api-error';
import { DATABASE_RETRY_AFTER_SECONDS } from '../../common/errors/database-errors';
import { PrometheusMetrics } from '../../common/stats/prometheus';
import { RequestMetrics } from '../../common/stats/request-metrics';
import { CacheStats, JobQueueStats, RateLimitStats } from '../../common/stats/service-stats';
import { AppConfig } from '../../config/app-config';
import { Database } from '../../database/database';
import { DatabaseHealthIndicator } from './database.health';
import type {
  CacheSummaryDto,
  DatabaseStatusDto,
  HealthDto,
  HealthSummaryDto,
  LiveDto,
  MemoryDto,
  MetricsDto,
} from './dto/health.response';
import { METRICS_TOKEN_REQUIRED } from './health.errors';
import { summaryStatus } from './summary-status';

/** The reports of the probes: what each one checks, and a failed check as its 503 body. */
@Injectable()
export class HealthService {
  constructor(
    private readonly health: HealthCheckService,
    private readonly databaseIndicator: DatabaseHealthIndicator,
    private readonly database: Database,
    private readonly metrics: RequestMetrics,
    private readonly cache: CacheStats,
    private readonly jobs: JobQueueStats,
    private readonly rateLimits: RateLimitStats,
    private readonly prometheusMetrics: PrometheusMetrics,
    private readonly config: AppConfig,
  ) {}

  /** Both shapes of the contract in one body; 503 with the same body when the database is down. */
  async overall(): Promise<HealthDto> {
    const result = await this.databaseIndicator.check();
    const database = result.database as DatabaseStatusDto;
    const up = database.status === 'up';
    const body: HealthDto = {
      status: up ? 'ok' : 'error',
      dbState: up ? this.database.state() : 0,
      timestamp: new Date().toISOString(),
      database,
      memory: memory(),
      cache: this.cacheSummary(),
      overall: up ? 'healthy' : 'unhealthy',
    };
    if (!up) throw new RawBodyError(503, body, DATABASE_RETRY_AFTER_SECONDS);
    return body;
  }

  /** The database check in Terminus's format (readiness and `health/db`). */
  databaseProbe() {
    return this.probe([() => this.databaseIndicator.check()]);
  }

  live(): LiveDto {
    return { status: 'alive', uptime: Math.round(process.uptime()) };
  }

  cacheProbe() {
    return this.probe([async () => ({ cache: { status: 'up' as const, ...this.cacheSummary() } })]);
  }

  jobsProbe() {
    return this.probe([
      async () => ({
        jobs: { status: 'up' as const, attached: this.jobs.attached, ...(await this.jobs.counts()) },
      }),
    ]);
  }

  metricsSnapshot(): MetricsDto {
    return { uptime: Math.round(process.uptime()), memory: memory(), performance: this.metrics.snapshot() };
  }

  /** The Prometheus exposition; with METRICS_TOKEN set, only for `Authorization: Bearer <METRICS_TOKEN>`. */
  async prometheus(authorization: string | undefined): Promise<{ contentType: string; text: string }> {
    const token = this.config.metricsToken;
    if (token && !sameSecret(authorization ?? '', `Bearer ${token}`))
      throw unauthorized(METRICS_TOKEN_REQUIRED);
    return {
      contentType: this.prometheusMetrics.contentType,
      text: await this.prometheusMetrics.exposition(),
    };
  }

  async summary(): Promise<HealthSummaryDto> {
    const database = (await this.databaseIndicator.check()).database;
    const jobs = await this.jobs.counts().catch(() => undefined);
    const { pending, failed, processed } = jobs ?? { pending: 0, failed: 0, processed: 0 };
    return {
      success: true,
      ...summaryStatus(database.status === 'up', jobs ?? { pending, failed, processed, failedRecently: 0 }),
      cache: this.cacheSummary(),
      jobQueue: { pending, failed, processed },
      rateLimiter: {
        blockedRequests: this.rateLimits.blockedRequests,
        totalRequests: this.rateLimits.totalRequests,
      },
    };
  }

  private async probe(checks: Parameters<HealthCheckService['check']>[0]) {
    try {
      return await this.health.check(checks);
    } catch (error) {
      const body = (error as { getResponse?: () => object }).getResponse?.() ?? { status: 'error' };
      // As every route's 503 of a dependency that is away: when to ask again.
      throw new RawBodyError(503, body, DATABASE_RETRY_AFTER_SECONDS);
    }
  }

  private cacheSummary(): CacheSummaryDto {
    return { hits: this.cache.hits, misses: this.cache.misses, hitRate: this.cache.hitRate() };
  }
}

/** Compares without leaking, through timing, how much of the secret matched. */
function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function memory(): MemoryDto {
  const { rss, heapTotal, heapUsed } = process.memoryUsage();
  return { rss, heapTotal, heapUsed };
}
