import { Module } from '@nestjs/common';
import { AttendanceModule } from '../attendance/attendance.module';
import { BillingModule } from '../billing/billing.module';
import { ExpensesModule } from '../expenses/expenses.module';
import { FeedbackModule } from '../feedback/feedback.module';
import { MessConfigModule } from '../mess-config/mess-config.module';
import { UsersModule } from '../users/users.module';
import { LeaveCalendarModule } from '../leave/leave-calendar.module';
import { AnalyticsController } from './analytics.controller';
import { AnalyticsService } from './analytics.service';

@Module({
  imports: [
    UsersModule,
    MessConfigModule,
    ExpensesModule,
    AttendanceModule,
    FeedbackModule,
    BillingModule,
    LeaveCalendarModule,
  ],
  controllers: [AnalyticsController],
  providers: [AnalyticsService],
})
export class AnalyticsModule {}
