import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { Database } from '../../database/database';
import { Outages } from '../outages/outages';
import { CacheInvalidation } from './cache-invalidation';
import { LocalCacheInvalidation } from './local-cache-invalidation';
import { PostgresCacheInvalidation } from './postgres-cache-invalidation';
import { RedisCacheInvalidation, redisChannel } from './redis-cache-invalidation';

/** One invalidation transport per process, for every cache that must agree across replicas. */
@Global()
@Module({
  providers: [
    {
      provide: CacheInvalidation,
      inject: [AppConfig, Database, Outages],
      useFactory: (config: AppConfig, database: Database, outages: Outages): CacheInvalidation => {
        if (config.redisUrl)
          return new RedisCacheInvalidation(config.redisUrl, redisChannel(config.databaseUrl), outages);
        const connection = database.connection();
        if (connection.kind === 'server')
          return new PostgresCacheInvalidation(connection.directUrl, database.db, outages);
        return new LocalCacheInvalidation();
      },
    },
  ],
  exports: [CacheInvalidation],
})
export class CacheInvalidationModule {}
