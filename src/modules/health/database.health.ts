import { Injectable, Logger } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { AppConfig } from '../../config/app-config';
import { Database, DatabaseTimeoutError } from '../../database/database';

/**
 * Terminus indicator for our Drizzle connection: `select 1` within READY_TIMEOUT_MS. The probes are public, so a
 * failure says only which kind it is; the driver's text (host, port, user) goes to the log, once per outage rather
 * than on every probe.
 */
@Injectable()
export class DatabaseHealthIndicator {
  private readonly logger = new Logger('DatabaseHealth');
  private failing = false;

  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly database: Database,
    private readonly config: AppConfig,
  ) {}

  async check(key = 'database') {
    const indicator = this.indicators.check(key);
    try {
      const responseTimeMs = await this.database.ping(this.config.readyTimeoutMs);
      if (this.failing) this.logger.log('The database answers again');
      this.failing = false;
      return indicator.up({ engine: this.database.kind, responseTimeMs });
    } catch (error) {
      if (!this.failing) {
        this.logger.warn(
          `The database does not answer: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      this.failing = true;
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
