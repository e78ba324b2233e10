import { Module } from '@nestjs/common';
import { toPaise } from '../../common/money/money';
import { AppConfig } from '../../config/app-config';
import { AnalyticsModule } from '../analytics/analytics.module';
import { AnalyticsService } from '../analytics/analytics.service';
import { AttendanceModule } from '../attendance/attendance.module';
import { ExpensesModule } from '../expenses/expenses.module';
import { MealsModule } from '../meals/meals.module';
import { MessConfigModule } from '../mess-config/mess-config.module';
import { UsersModule } from '../users/users.module';
import { LeaveCalendarModule } from '../leave/leave-calendar.module';
import { EmailChannel } from './channels/email.channel';
import { WhatsAppChannel } from './channels/whatsapp.channel';
import { DeliveryService } from './delivery.service';
import { NotificationQueue } from './notification-queue';
import { MONTHLY_BILLS, MonthlyBills, NotificationSchedules } from './notification-schedules';
import { NotificationTriggers } from './notification-triggers';
import { LeaveDecidedListener } from './leave-decided.listener';
import { NotificationsController } from './notifications.controller';
import { NotificationsRepository } from './notifications.repository';
import { NotificationsService } from './notifications.service';
import './notifications.errors';

@Module({
  imports: [
    UsersModule,
    MessConfigModule,
    ExpensesModule,
    MealsModule,
    AttendanceModule,
    AnalyticsModule,
    LeaveCalendarModule,
  ],
  controllers: [NotificationsController],
  providers: [
    NotificationsRepository,
    EmailChannel,
    WhatsAppChannel,
    DeliveryService,
    NotificationQueue,
    NotificationsService,
    NotificationTriggers,
    NotificationSchedules,
    LeaveDecidedListener,
    {
      // The monthly bill from analytics, in paise, with the share method NOTIFY_SHARE_METHOD names.
      provide: MONTHLY_BILLS,
      inject: [AnalyticsService, AppConfig],
      useFactory: (analytics: AnalyticsService, config: AppConfig): MonthlyBills => ({
        async bill(month) {
          const bill = await analytics.bill(month, config.notifications.schedules.shareMethod);
          return {
            totalPaise: toPaise(bill.totalExpenses) ?? Math.round(bill.totalExpenses * 100),
            shares: bill.shares.map((s) => ({
              userId: s.userId,
              meals: s.meals,
              sharePaise: toPaise(s.share) ?? Math.round(s.share * 100),
            })),
          };
        },
      }),
    },
  ],
  exports: [NotificationsService],
})
export class NotificationsModule {}
