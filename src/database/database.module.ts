import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { Outages } from '../common/outages/outages';
import { Database } from './database';
import { openDatabase } from './open-database';
import { retryWhileUnavailable } from './start-up-retry';

@Global()
@Module({
  providers: [
    {
      provide: Database,
      inject: [AppConfig, Outages],
      useFactory: async (config: AppConfig, outages: Outages): Promise<Database> => {
        // A switchover or a server still starting fails a step with 57P01, 25006 or a refused connection: the step
        // runs again for up to DB_START_RETRY_SECONDS instead of the start-up failing at once.
        const retry = { deadlineMs: config.db.startRetryMs, logger: new Logger(DatabaseModule.name) };
        const options = {
          databaseUrl: config.databaseUrl,
          directUrl: config.directUrl,
          migrationUrl: config.migrationUrl,
          poolMode: config.poolMode,
          dataDir: config.dataDir,
          poolMax: config.db.poolMax,
          statementTimeoutMs: config.db.statementTimeoutMs,
          connectionTimeoutMs: config.db.connectionTimeoutMs,
          queryTimeoutMs: config.db.queryTimeoutMs,
          template: config.embeddedTemplate,
        };
        const database = await retryWhileUnavailable('Opening the database', () => openDatabase(options), retry);
        await retryWhileUnavailable('Migrating the database', () => database.migrate(), retry);
        // While the database is away, its outage log tries it now and then to say when it is back.
        outages.watch('database', () => database.ping(config.readyTimeoutMs));
        return database;
      },
    },
  ],
  exports: [Database],
})
export class DatabaseModule implements OnApplicationShutdown {
  private readonly logger = new Logger(DatabaseModule.name);

  constructor(@Inject(Database) private readonly database: Database) {}

  async onApplicationShutdown(): Promise<void> {
    await this.database.close();
    this.logger.log('Database connection closed');
  }
}
