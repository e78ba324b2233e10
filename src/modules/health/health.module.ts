import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { DatabaseHealthIndicator } from './database.health';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';
import { PrometheusCollectors } from './prometheus.collectors';

@Module({
  imports: [
    TerminusModule.forRoot({ logger: false }) /* a failing check is an outage, logged once by Outages */,
  ],
  controllers: [HealthController],
  providers: [DatabaseHealthIndicator, HealthService, PrometheusCollectors],
})
export class HealthModule {}
