import { ApiProperty } from '@nestjs/swagger';
import { SUMMARY_STATUS_RULE, SUMMARY_STATUSES, type SummaryStatus } from '../summary-status';

export class MemoryDto {
  @ApiProperty() rss: number;
  @ApiProperty() heapTotal: number;
  @ApiProperty() heapUsed: number;
}
export class PerformanceDto {
  @ApiProperty({ description: 'Mean response time over the last minute, ms' }) avgResponseTime: number;
  @ApiProperty({ description: '95th percentile over the last minute, ms' }) p95ResponseTime: number;
  @ApiProperty({ description: '99th percentile over the last minute, ms' }) p99ResponseTime: number;
  @ApiProperty({ description: 'Requests per second over the last minute' }) requestsPerSecond: number;
  @ApiProperty({ description: 'Share of 5xx answers over the last minute, 0..1' }) errorRate: number;
}
export class MetricsDto {
  @ApiProperty({ description: 'Process uptime, seconds' }) uptime: number;
  @ApiProperty({ type: MemoryDto }) memory: MemoryDto;
  @ApiProperty({ type: PerformanceDto }) performance: PerformanceDto;
}
export class CacheSummaryDto {
  @ApiProperty() hits: number;
  @ApiProperty() misses: number;
  @ApiProperty({ example: '87.50%' }) hitRate: string;
}
export class JobQueueSummaryDto {
  @ApiProperty() pending: number;
  @ApiProperty() failed: number;
  @ApiProperty() processed: number;
}
export class RateLimiterSummaryDto {
  @ApiProperty() blockedRequests: number;
  @ApiProperty() totalRequests: number;
}
export class HealthSummaryDto {
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
export class DatabaseStatusDto {
  @ApiProperty({ enum: ['up', 'down'] }) status: string;
  @ApiProperty({ enum: ['embedded', 'server'] }) engine: string;
  @ApiProperty({ required: false }) responseTimeMs?: number;
  @ApiProperty({ required: false }) message?: string;
}
export class HealthDto {
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
export class ProbeDto {
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
export class LiveDto {
  @ApiProperty({ example: 'alive' }) status: string;
  @ApiProperty() uptime: number;
}
