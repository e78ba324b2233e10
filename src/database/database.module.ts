import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { Outages } from '../common/outages/outages';
import { Database } from './database';
import { openDatabase } from './open-database';

@Global()
@Module({
  providers: [
    {
      provide: Database,
      inject: [AppConfig, Outages],
      useFactory: async (config: AppConfig, outages: Outages): Promise<Database> => {
        const database = await openDatabase({
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
        });
        await database.migrate();
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
