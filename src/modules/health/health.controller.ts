import { Controller, Get, Header, Headers, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheckService } from '@nestjs/terminus';
import { Public, Allow } from '../../common/auth/auth.decorators';
import { RawBodyError, unauthorized } from '../../common/errors/api-error';
import { ApiErrors, ApiRoleAuth } from '../../common/http/api-docs';
import { PrometheusMetrics } from '../../common/stats/prometheus';
import { AppConfig } from '../../config/app-config';
import type { FastifyReply } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { METRICS_TOKEN_REQUIRED } from './health.errors';
import { CacheStats, JobQueueStats, RateLimitStats } from '../../common/stats/service-stats';
import { Database } from '../../database/database';
import { DatabaseHealthIndicator } from './database.health';
import { RequestMetrics } from '../../common/stats/request-metrics';
import { SUMMARY_STATUS_RULE, SUMMARY_STATUSES, type SummaryStatus, summaryStatus } from './summary-status';

class MemoryDto {
  @ApiProperty() rss: number;
  @ApiProperty() heapTotal: number;
  @ApiProperty() heapUsed: number;
}
class PerformanceDto {
  @ApiProperty({ description: 'Mean response time over the last minute, ms' }) avgResponseTime: number;
  @ApiProperty({ description: '95th percentile over the last minute, ms' }) p95ResponseTime: number;
  @ApiProperty({ description: '99th percentile over the last minute, ms' }) p99ResponseTime: number;
  @ApiProperty({ description: 'Requests per second over the last minute' }) requestsPerSecond: number;
  @ApiProperty({ description: 'Share of 5xx answers over the last minute, 0..1' }) errorRate: number;
}
class MetricsDto {
  @ApiProperty({ description: 'Process uptime, seconds' }) uptime: number;
  @ApiProperty({ type: MemoryDto }) memory: MemoryDto;
  @ApiProperty({ type: PerformanceDto }) performance: PerformanceDto;
}
class CacheSummaryDto {
  @ApiProperty() hits: number;
  @ApiProperty() misses: number;
  @ApiProperty({ example: '87.50%' }) hitRate: string;
}
class JobQueueSummaryDto {
  @ApiProperty() pending: number;
  @ApiProperty() failed: number;
  @ApiProperty() processed: number;
}
class RateLimiterSummaryDto {
  @ApiProperty() blockedRequests: number;
  @ApiProperty() totalRequests: number;
}
class HealthSummaryDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ enum: SUMMARY_STATUSES, description: SUMMARY_STATUS_RULE, example: 'degraded' })
  status: SummaryStatus;
  @ApiProperty({
    type: [String],
    description: 'Why the status is not `healthy`; empty when it is',
    example: ['65 notification deliveries failed in the last 24 hours'],
  })
  reasons: string[];
  @ApiProperty({ type: CacheSummaryDto }) cache: CacheSummaryDto;
  @ApiProperty({ type: JobQueueSummaryDto }) jobQueue: JobQueueSummaryDto;
  @ApiProperty({ type: RateLimiterSummaryDto }) rateLimiter: RateLimiterSummaryDto;
}
class DatabaseStatusDto {
  @ApiProperty({ enum: ['up', 'down'] }) status: string;
  @ApiProperty({ enum: ['embedded', 'server'] }) engine: string;
  @ApiProperty({ required: false }) responseTimeMs?: number;
  @ApiProperty({ required: false }) message?: string;
}
class HealthDto {
  @ApiProperty({ enum: ['ok', 'error'] }) status: string;
  @ApiProperty({
    enum: [0, 1, 2, 3],
    description: '0 disconnected, 1 connected, 2 connecting, 3 disconnecting',
  })
  dbState: number;
  @ApiProperty({ format: 'date-time' }) timestamp: string;
  @ApiProperty({ type: DatabaseStatusDto }) database: DatabaseStatusDto;
  @ApiProperty({ type: MemoryDto }) memory: MemoryDto;
  @ApiProperty({ type: CacheSummaryDto }) cache: CacheSummaryDto;
  @ApiProperty({ enum: ['healthy', 'unhealthy'] }) overall: string;
}
class ProbeDto {
  @ApiProperty({ example: 'ok' }) status: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Per-indicator results (Terminus format)',
  })
  info: object;
  @ApiProperty({ type: 'object', additionalProperties: true }) error: object;
  @ApiProperty({ type: 'object', additionalProperties: true }) details: object;
}
class LiveDto {
  @ApiProperty({ example: 'alive' }) status: string;
  @ApiProperty() uptime: number;
}

@ApiTags('Health')
@Controller()
export class HealthController {
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

  @Public()
  @Get('health')
  @ApiOperation({
    summary: 'Overall health: both shapes of the contract merged; 503 when the database is down',
  })
  @ApiOkResponse({ type: HealthDto })
  @ApiResponse({ status: 503, type: HealthDto })
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
    if (!up) throw new RawBodyError(503, body);
    return body;
  }

  @Public()
  @Get('ready')
  @ApiOperation({ summary: 'Readiness: 200 when the database answers within READY_TIMEOUT_MS, else 503' })
  @ApiOkResponse({ type: ProbeDto })
  @ApiResponse({ status: 503, type: ProbeDto })
  ready() {
    return this.probe([() => this.databaseIndicator.check()]);
  }

  @Public()
  @Get('live')
  @ApiOperation({ summary: 'Liveness: 200 while the process runs; touches no dependency' })
  @ApiOkResponse({ type: LiveDto })
  live(): LiveDto {
    return { status: 'alive', uptime: Math.round(process.uptime()) };
  }

  @Public()
  @Get('health/db')
  @ApiOperation({ summary: 'Database check (Terminus format)' })
  @ApiOkResponse({ type: ProbeDto })
  @ApiResponse({ status: 503, type: ProbeDto })
  db() {
    return this.probe([() => this.databaseIndicator.check()]);
  }

  @Public()
  @Get('health/cache')
  @ApiOperation({ summary: 'Analytics cache counters (Terminus format)' })
  @ApiOkResponse({ type: ProbeDto })
  cacheHealth() {
    return this.probe([async () => ({ cache: { status: 'up' as const, ...this.cacheSummary() } })]);
  }

  @Public()
  @Get('health/jobs')
  @ApiOperation({ summary: 'Job queue counters (Terminus format); zeros until a queue is attached' })
  @ApiOkResponse({ type: ProbeDto })
  @ApiResponse({ status: 503, type: ProbeDto })
  jobsHealth() {
    return this.probe([
      async () => ({
        jobs: { status: 'up' as const, attached: this.jobs.attached, ...(await this.jobs.counts()) },
      }),
    ]);
  }

  @Public()
  @Get('metrics')
  @ApiOperation({ summary: 'Process and request metrics over the last minute' })
  @ApiOkResponse({ type: MetricsDto })
  metricsSnapshot(): MetricsDto {
    return { uptime: Math.round(process.uptime()), memory: memory(), performance: this.metrics.snapshot() };
  }

  @Public()
  @Get('metrics/prometheus')
  @Header('cache-control', 'no-store')
  @ApiOperation({
    summary:
      'Prometheus text exposition: request durations by route template, requests in flight, database pool, job queue, notification deliveries, cache, rate limiter, process and event loop',
    description:
      'Public like the other probes, unless METRICS_TOKEN is set: then it needs `Authorization: Bearer <METRICS_TOKEN>`.',
  })
  // Only the success is text: the 401 is JSON like every other route's error.
  @ApiOkResponse({
    description: 'The exposition (text format 0.0.4)',
    content: {
      'text/plain': {
        schema: {
          type: 'string',
          example:
            '# TYPE mess_http_request_duration_seconds histogram\nmess_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/api/expenses",status="200"} 3',
        },
      },
    },
  })
  @ApiErrors([401, METRICS_TOKEN_REQUIRED])
  async prometheus(
    @Headers('authorization') authorization: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const token = this.config.metricsToken;
    if (token && !sameSecret(authorization ?? '', `Bearer ${token}`))
      throw unauthorized(METRICS_TOKEN_REQUIRED);
    void reply.header('content-type', this.prometheusMetrics.contentType);
    return this.prometheusMetrics.exposition();
  }

  @Get('admin/health-summary')
  @Allow('health.summary')
  @ApiOperation({
    summary: 'Status with its reasons, and cache, job-queue and rate-limiter counters (admin)',
    description: SUMMARY_STATUS_RULE,
  })
  @ApiOkResponse({ type: HealthSummaryDto })
  @ApiRoleAuth()
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
      throw new RawBodyError(503, body);
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
