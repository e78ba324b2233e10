import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { ScheduleModule } from '@nestjs/schedule';
import { ThrottlerModule } from '@nestjs/throttler';
import { UnreadInputGuard } from './common/http/unread-input.guard';
import { Outages } from './common/outages/outages';
import { LoggerModule } from 'nestjs-pino';
import { CacheInvalidationModule } from './common/cache/cache-invalidation.module';
import { AllExceptionsFilter } from './common/errors/http-exception.filter';
import { loggerOptions } from './common/logging/request-log';
import { RateLimitGuard, rateLimitStorage, throttlerOptions } from './common/http/rate-limit';
import { RouteMetadata } from './common/http/route-metadata';
import { RequestValidationPipe } from './common/http/request-validation.pipe';
import { AppConfig } from './config/app-config';
import { CoreModule } from './config/core.module';
import { DatabaseModule } from './database/database.module';
import { EmbeddedBackupsModule } from './database/backup/embedded-backups';
import { AccountsModule } from './modules/accounts';
import { AuditModule } from './modules/audit';
import { AnalyticsModule } from './modules/analytics';
import { BillingModule } from './modules/billing';
import { AttendanceModule } from './modules/attendance';
import { AuthGuard, AuthModule } from './modules/auth';
import { ExpensesModule } from './modules/expenses';
import { ExtrasModule } from './modules/extras';
import { FeedbackModule } from './modules/feedback';
import { HealthModule } from './modules/health';
import { KitchenModule } from './modules/kitchen';
import { LeaveModule } from './modules/leave';
import { MealsModule } from './modules/meals';
import { MessConfigModule } from './modules/mess-config';
import { MembershipsModule } from './modules/memberships';
import { TermsModule } from './modules/terms';
import { MessesModule } from './modules/messes';
import { NotificationsModule } from './modules/notifications';
import { OutboxModule } from './modules/outbox';
import { UsersModule } from './modules/users';
import { PrivacyModule } from './modules/privacy';
import { PrivacyNoticeModule } from './modules/privacy-notice';

@Module({})
export class AppModule {
  static register(config: AppConfig): DynamicModule {
    const outages = new Outages();
    return {
      module: AppModule,
      imports: [
        CoreModule.register(config, outages),
        LoggerModule.forRoot({
          // No pino-http middleware: the request line is written by a Fastify hook (see request-log.ts).
          forRoutes: [],
          pinoHttp: loggerOptions(config.logLevel),
        }),
        DatabaseModule,
        EmbeddedBackupsModule,
        OutboxModule,
        CacheInvalidationModule,
        ThrottlerModule.forRoot(throttlerOptions(config, rateLimitStorage(config, outages))),
        EventEmitterModule.forRoot(),
        ScheduleModule.forRoot(),
        MessesModule,
        AuditModule,
        UsersModule,
        AuthModule,
        MessConfigModule,
        AttendanceModule,
        FeedbackModule,
        ExpensesModule,
        MealsModule,
        AccountsModule,
        BillingModule,
        AnalyticsModule,
        LeaveModule,
        MembershipsModule,
        TermsModule,
        ExtrasModule,
        KitchenModule,
        NotificationsModule,
        PrivacyNoticeModule,
        PrivacyModule,
        HealthModule,
      ],
      providers: [
        // Order matters: rate limits before authentication, so floods never reach the database.
        { provide: APP_GUARD, useClass: RateLimitGuard },
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_GUARD, useClass: UnreadInputGuard },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        { provide: APP_PIPE, useClass: RequestValidationPipe },
        RouteMetadata,
      ],
    };
  }
}
