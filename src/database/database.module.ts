import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { Database } from './database';
import { openDatabase } from './open-database';

@Global()
@Module({
  providers: [
    {
      provide: Database,
      inject: [AppConfig],
      useFactory: async (config: AppConfig): Promise<Database> => {
        const database = await openDatabase({
          databaseUrl: config.databaseUrl,
          dataDir: config.dataDir,
          poolMax: config.db.poolMax,
          statementTimeoutMs: config.db.statementTimeoutMs,
          connectionTimeoutMs: config.db.connectionTimeoutMs,
          queryTimeoutMs: config.db.queryTimeoutMs,
          template: config.embeddedTemplate,
        });
        await database.migrate();
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
