import { Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { AccountsModule } from '../accounts/accounts.module';
import { AccountsService } from '../accounts/accounts.service';
import { BillingModule } from '../billing/billing.module';
import { BillingService } from '../billing/billing.service';
import { billLines } from '../billing/month-charges';
import { AttendanceModule } from '../attendance/attendance.module';
import { ExpensesModule } from '../expenses/expenses.module';
import { MealsModule } from '../meals/meals.module';
import { MessConfigModule } from '../mess-config/mess-config.module';
import { UsersModule } from '../users/users.module';
import { LeaveCalendarModule } from '../leave/leave-calendar.module';
import { EmailChannel } from './channels/email.channel';
import { WhatsAppChannel } from './channels/whatsapp.channel';
import { ChannelSender } from './channel-sender';
import { DeliveryService } from './delivery.service';
import { NotificationQueue } from './notification-queue';
import { MONTHLY_BILLS, MonthlyBills, NotificationSchedules } from './notification-schedules';
import { NotificationTriggers } from './notification-triggers';
import { PaymentReceiptsListener } from './payment-receipts.listener';
import { LeaveDecidedListener } from './leave-decided.listener';
import { NotificationsController } from './notifications.controller';
import { NotificationsRepository } from './notifications.repository';
import { NotificationsService } from './notifications.service';
import { RouteRunner } from './route-runner';
import { WhatsAppConfirmation } from './whatsapp-confirmation';
import './notifications.errors';

@Module({
  imports: [
    UsersModule,
    MessConfigModule,
    ExpensesModule,
    MealsModule,
    AttendanceModule,
    BillingModule,
    AccountsModule,
    LeaveCalendarModule,
  ],
  controllers: [NotificationsController],
  providers: [
    NotificationsRepository,
    EmailChannel,
    WhatsAppChannel,
    WhatsAppConfirmation,
    ChannelSender,
    RouteRunner,
    DeliveryService,
    NotificationQueue,
    NotificationsService,
    NotificationTriggers,
    PaymentReceiptsListener,
    NotificationSchedules,
    LeaveDecidedListener,
    {
      // The monthly bill from billing, in paise, under NOTIFY_SHARE_METHOD or else the mess's chargeMethod (what
      // the member is charged); who owes what from accounts.
      provide: MONTHLY_BILLS,
      inject: [BillingService, AccountsService, AppConfig],
      useFactory: (billing: BillingService, accounts: AccountsService, config: AppConfig): MonthlyBills => ({
        async bill(month) {
          const method = config.notifications.schedules.shareMethod ?? (await billing.chargeMethod());
          const { bill, extras } = await billing.bill(month, method);
          return { totalPaise: bill.totalPaise, lines: billLines(bill, extras) };
        },
        dues: () => accounts.dueBalances(),
      }),
    },
  ],
  exports: [NotificationsService],
})
export class NotificationsModule {}
