import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { AppConfig } from '../../config/app-config';
import { Database } from '../../database/database';

/** Terminus indicator for our Drizzle connection: `select 1` within READY_TIMEOUT_MS. */
@Injectable()
export class DatabaseHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly database: Database,
    private readonly config: AppConfig,
  ) {}

  async check(key = 'database') {
    const indicator = this.indicators.check(key);
    try {
      const responseTimeMs = await this.database.ping(this.config.readyTimeoutMs);
      return indicator.up({ engine: this.database.kind, responseTimeMs });
    } catch (error) {
      return indicator.down({
        engine: this.database.kind,
        message: error instanceof Error ? error.message : 'unreachable',
      });
    }
  }
}
