import { BillingMemberData } from './billing-member-data';
import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts';
import { AttendanceModule } from '../attendance';
import { AuditTrailModule } from '../audit-trail';
import { ExpensesModule } from '../expenses';
import { ExtrasModule } from '../extras';
import { LeaveCalendarModule } from '../leave-calendar';
import { MessConfigModule } from '../mess-config';
import { UsersModule } from '../users';
import { BillPresenter } from './bill-presenter';
import { BillingListener } from './billing.listener';
import { BillingRepository } from './billing.repository';
import { BillingService } from './billing.service';
import { MonthCache } from './month-cache';
import { MonthClosingService } from './month-closing.service';
import { MonthsController } from './months.controller';
import { SharesController } from './shares.controller';

/** The monthly bill in paise, its kept month figures and cache, the month's close and reopen, and posting to accounts. */
@Module({
  imports: [
    UsersModule,
    MessConfigModule,
    ExpensesModule,
    ExtrasModule,
    AttendanceModule,
    LeaveCalendarModule,
    AccountsModule,
    AuditTrailModule,
  ],
  controllers: [SharesController, MonthsController],
  providers: [
    BillingMemberData,
    BillingRepository,
    BillingService,
    BillPresenter,
    MonthClosingService,
    BillingListener,
    MonthCache,
  ],
  exports: [BillingService, MonthCache, BillingMemberData],
})
export class BillingModule {}
