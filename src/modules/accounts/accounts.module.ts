import { Module } from '@nestjs/common';
import { describeConstraint } from '../../common/errors/database-errors';
import { AuditTrailModule } from '../audit-trail';
import { MessConfigModule } from '../mess-config';
import { UsersModule } from '../users';
import { AccountsController } from './accounts.controller';
import { AccountErrors } from './accounts.errors';
import { AccountsQueries } from './accounts.queries';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { LedgerService } from './ledger.service';
import { StatementExportService } from './statement-export.service';
import { PaymentGatewayClient } from './payment-gateway.client';
import { PaymentGatewayWebhookController, PaymentsController } from './payments.controller';
import { PaymentsRepository } from './payments.repository';
import { PaymentsService } from './payments.service';

// Two requests racing past the service's checks meet these unique indexes; the answer is the check's own 409.
describeConstraint('account_entries_reverses_unique', 409, AccountErrors.alreadyReversed);
describeConstraint('account_entries_mess_opening_unique', 409, AccountErrors.openingExists);

/**
 * Members' accounts: the append-only ledger (LedgerService records by hand, AccountsService posts a month's charges
 * for billing), balances and statements (AccountsQueries), statements as CSV and PDF (StatementExportService);
 * paying the mess (PaymentsService: UPI links, claims, the bank statement, the payment gateway).
 */
@Module({
  imports: [MessConfigModule, AuditTrailModule, UsersModule],
  controllers: [AccountsController, PaymentsController, PaymentGatewayWebhookController],
  providers: [
    AccountsRepository,
    AccountsService,
    AccountsQueries,
    LedgerService,
    StatementExportService,
    PaymentsRepository,
    PaymentsService,
    PaymentGatewayClient,
  ],
  exports: [AccountsService],
})
export class AccountsModule {}
