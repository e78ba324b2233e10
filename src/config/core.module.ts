import { DynamicModule, Global, Module } from '@nestjs/common';
import { DomainEventBus } from '../common/events/domain-event-bus';
import { PrometheusMetrics } from '../common/stats/prometheus';
import { CacheStats, JobQueueStats, RateLimitStats } from '../common/stats/service-stats';
import { Clock } from '../common/time/clock';
import { RequestMetrics } from '../common/stats/request-metrics';
import { AppConfig } from './app-config';

/** Process-wide singletons every module may inject: the configuration and the counters health reports. */
@Global()
@Module({})
export class CoreModule {
  static register(config: AppConfig): DynamicModule {
    const providers = [
      { provide: AppConfig, useValue: config },
      { provide: RequestMetrics, useValue: new RequestMetrics() },
      Clock,
      DomainEventBus,
      CacheStats,
      JobQueueStats,
      RateLimitStats,
      PrometheusMetrics,
    ];
    return {
      module: CoreModule,
      providers,
      exports: [
        AppConfig,
        Clock,
        DomainEventBus,
        RequestMetrics,
        CacheStats,
        JobQueueStats,
        RateLimitStats,
        PrometheusMetrics,
      ],
    };
  }
}
