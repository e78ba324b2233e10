import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { Database } from '../../database/database';
import {
  CacheInvalidation,
  LocalCacheInvalidation,
  PostgresCacheInvalidation,
  RedisCacheInvalidation,
  redisChannel,
} from './cache-invalidation';

/** One invalidation transport per process, for every cache that must agree across replicas. */
@Global()
@Module({
  providers: [
    {
      provide: CacheInvalidation,
      inject: [AppConfig, Database],
      useFactory: (config: AppConfig, database: Database): CacheInvalidation => {
        if (config.redisUrl)
          return new RedisCacheInvalidation(config.redisUrl, redisChannel(config.databaseUrl));
        const connection = database.connection();
        if (connection.kind === 'server') return new PostgresCacheInvalidation(connection.url, database.db);
        return new LocalCacheInvalidation();
      },
    },
  ],
  exports: [CacheInvalidation],
})
export class CacheInvalidationModule {}
