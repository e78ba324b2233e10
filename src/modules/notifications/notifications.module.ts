import { NotificationsMemberData } from './notifications-member-data';
import { Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { AccountsModule, AccountsService } from '../accounts';
import { BillingModule, BillingService, billLines } from '../billing';
import { AttendanceModule } from '../attendance';
import { ExpensesModule } from '../expenses';
import { MealsModule } from '../meals';
import { MessConfigModule } from '../mess-config';
import { UsersModule } from '../users';
import { LeaveCalendarModule } from '../leave-calendar';
import { EmailChannel } from './channels/email.channel';
import { WhatsAppChannel } from './channels/whatsapp.channel';
import { ChannelSender } from './channel-sender';
import { DeliveryService } from './delivery.service';
import { NotificationQueue } from './notification-queue';
import { MONTHLY_BILLS, MonthlyBills, NotificationSchedules } from './notification-schedules';
import { NotificationTriggers } from './notification-triggers';
import { PaymentReceiptsListener } from './payment-receipts.listener';
import { PasswordResetListener } from './password-reset.listener';
import { LeaveDecidedListener } from './leave-decided.listener';
import { MessAllocatedListener } from './mess-allocated.listener';
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
    NotificationsMemberData,
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
    PasswordResetListener,
    NotificationSchedules,
    LeaveDecidedListener,
    MessAllocatedListener,
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
  exports: [NotificationsService, NotificationsMemberData],
})
export class NotificationsModule {}
