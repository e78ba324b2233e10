import { Injectable } from '@nestjs/common';
import { failureReason, Outages } from '../../common/outages/outages';
import { HealthIndicatorService } from '@nestjs/terminus';
import { AppConfig } from '../../config/app-config';
import { Database, DatabaseTimeoutError } from '../../database/database';

/**
 * Terminus indicator for our Drizzle connection: `select 1` within READY_TIMEOUT_MS. The probes are public, so a
 * failure says only which kind it is; the outage goes to the log once (common/outages), never the driver's
 * text of every probe.
 */
@Injectable()
export class DatabaseHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly database: Database,
    private readonly config: AppConfig,
    private readonly outages: Outages,
  ) {}

  async check(key = 'database') {
    const indicator = this.indicators.check(key);
    try {
      const responseTimeMs = await this.database.ping(this.config.readyTimeoutMs);
      this.outages.up('database');
      return indicator.up({ engine: this.database.kind, responseTimeMs });
    } catch (error) {
      this.outages.down('database', failureReason(error), 'the readiness probe');
      return indicator.down({
        engine: this.database.kind,
        message:
          error instanceof DatabaseTimeoutError
            ? `did not answer within ${this.config.readyTimeoutMs} ms`
            : 'unreachable',
      });
    }
  }
}
