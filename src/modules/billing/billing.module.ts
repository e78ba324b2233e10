import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AttendanceModule } from '../attendance/attendance.module';
import { AuditModule } from '../audit/audit.module';
import { ExpensesModule } from '../expenses/expenses.module';
import { ExtrasModule } from '../extras/extras.module';
import { MessConfigModule } from '../mess-config/mess-config.module';
import { UsersModule } from '../users/users.module';
import { BillPresenter } from './bill-presenter';
import { BillingListener } from './billing.listener';
import { BillingRepository } from './billing.repository';
import { BillingService } from './billing.service';
import { MonthCache } from './month-cache';
import { MonthClosingService } from './month-closing.service';
import { MonthsController } from './months.controller';
import { ShareRecalculator } from './share-recalculator';
import { SharesController } from './shares.controller';

/** The monthly bill in paise, its cache and recalculation, the month's close and reopen, and posting to accounts. */
@Module({
  imports: [
    UsersModule,
    MessConfigModule,
    ExpensesModule,
    ExtrasModule,
    AttendanceModule,
    AccountsModule,
    AuditModule,
  ],
  controllers: [SharesController, MonthsController],
  providers: [
    BillingRepository,
    BillingService,
    BillPresenter,
    MonthClosingService,
    BillingListener,
    MonthCache,
    ShareRecalculator,
  ],
  exports: [BillingService, MonthCache],
})
export class BillingModule {}
