import { Controller, Get, Header, Headers, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Allow, Public } from '../../common/auth/auth.decorators';
import { ApiErrors, ApiRoleAuth } from '../../common/http/api-docs';
import { HealthDto, HealthSummaryDto, LiveDto, MetricsDto, ProbeDto } from './dto/health.response';
import { METRICS_TOKEN_REQUIRED } from './health.errors';
import { HealthService } from './health.service';
import { SUMMARY_STATUS_RULE } from './summary-status';

@ApiTags('Health')
@Controller()
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Public()
  @Get('health')
  @ApiOperation({
    summary: 'Overall health: both shapes of the contract merged; 503 when the database is down',
  })
  @ApiOkResponse({ type: HealthDto })
  @ApiResponse({ status: 503, type: HealthDto })
  getHealth(): Promise<HealthDto> {
    return this.health.overall();
  }

  @Public()
  @Get('ready')
  @ApiOperation({ summary: 'Readiness: 200 when the database answers within READY_TIMEOUT_MS, else 503' })
  @ApiOkResponse({ type: ProbeDto })
  @ApiResponse({ status: 503, type: ProbeDto })
  getReadiness() {
    return this.health.databaseProbe();
  }

  @Public()
  @Get('live')
  @ApiOperation({ summary: 'Liveness: 200 while the process runs; touches no dependency' })
  @ApiOkResponse({ type: LiveDto })
  getLiveness(): LiveDto {
    return this.health.live();
  }

  @Public()
  @Get('health/db')
  @ApiOperation({ summary: 'Database check (Terminus format)' })
  @ApiOkResponse({ type: ProbeDto })
  @ApiResponse({ status: 503, type: ProbeDto })
  getDatabaseHealth() {
    return this.health.databaseProbe();
  }

  @Public()
  @Get('health/cache')
  @ApiOperation({ summary: 'Analytics cache counters (Terminus format)' })
  @ApiOkResponse({ type: ProbeDto })
  getCacheHealth() {
    return this.health.cacheProbe();
  }

  @Public()
  @Get('health/jobs')
  @ApiOperation({ summary: 'Job queue counters (Terminus format); zeros until a queue is attached' })
  @ApiOkResponse({ type: ProbeDto })
  @ApiResponse({ status: 503, type: ProbeDto })
  getJobsHealth() {
    return this.health.jobsProbe();
  }

  @Public()
  @Get('metrics')
  @ApiOperation({ summary: 'Process and request metrics over the last minute' })
  @ApiOkResponse({ type: MetricsDto })
  getMetrics(): MetricsDto {
    return this.health.metricsSnapshot();
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
  async getPrometheusMetrics(
    @Headers('authorization') authorization: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const { contentType, text } = await this.health.prometheus(authorization);
    void reply.header('content-type', contentType);
    return text;
  }

  @Get('admin/health-summary')
  @Allow('health.summary')
  @ApiOperation({
    summary: 'Status with its reasons, and cache, job-queue and rate-limiter counters (admin)',
    description: SUMMARY_STATUS_RULE,
  })
  @ApiOkResponse({ type: HealthSummaryDto })
  @ApiRoleAuth()
  getHealthSummary(): Promise<HealthSummaryDto> {
    return this.health.summary();
  }
}
