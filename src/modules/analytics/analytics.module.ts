import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts';
import { AttendanceModule } from '../attendance';
import { BillingModule } from '../billing';
import { ExpensesModule } from '../expenses';
import { FeedbackModule } from '../feedback';
import { KitchenModule } from '../kitchen';
import { MessConfigModule } from '../mess-config';
import { UsersModule } from '../users';
import { LeaveCalendarModule } from '../leave-calendar';
import { AnalyticsController } from './analytics.controller';
import { AnalyticsService } from './analytics.service';
import { UniversityViewService } from './university-view.service';

@Module({
  imports: [
    UsersModule,
    MessConfigModule,
    ExpensesModule,
    AttendanceModule,
    FeedbackModule,
    BillingModule,
    LeaveCalendarModule,
    AccountsModule,
    KitchenModule,
  ],
  controllers: [AnalyticsController],
  providers: [AnalyticsService, UniversityViewService],
})
export class AnalyticsModule {}
