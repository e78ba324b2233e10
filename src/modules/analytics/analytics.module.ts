import { Module } from '@nestjs/common';
import { AttendanceModule } from '../attendance/attendance.module';
import { ExpensesModule } from '../expenses/expenses.module';
import { FeedbackModule } from '../feedback/feedback.module';
import { MessConfigModule } from '../mess-config/mess-config.module';
import { UsersModule } from '../users/users.module';
import { LeaveCalendarModule } from '../leave/leave-calendar.module';
import { AnalyticsCache } from './analytics-cache';
import { AnalyticsController } from './analytics.controller';
import { AnalyticsRepository } from './analytics.repository';
import { AnalyticsService } from './analytics.service';
import { ShareRecalculator } from './share-recalculator';

@Module({
  imports: [
    UsersModule,
    MessConfigModule,
    ExpensesModule,
    AttendanceModule,
    FeedbackModule,
    LeaveCalendarModule,
  ],
  controllers: [AnalyticsController],
  providers: [AnalyticsRepository, AnalyticsService, AnalyticsCache, ShareRecalculator],
  exports: [AnalyticsService],
})
export class AnalyticsModule {}
