import { AccountsMemberData } from './accounts-member-data';
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
import { BankStatementService } from './bank-statement.service';
import { GatewayEventsProcessor } from './gateway-events.processor';
import { GatewayEventsRepository } from './gateway-events.repository';
import { GatewayPaymentsService } from './gateway-payments.service';
import { PaymentClaimsService } from './payment-claims.service';
import { PaymentRecorder } from './payment-recorder';

// Two requests racing past the service's checks meet these unique indexes; the answer is the check's own 409.
describeConstraint('account_entries_reverses_unique', 409, AccountErrors.alreadyReversed);
describeConstraint('account_entries_mess_opening_unique', 409, AccountErrors.openingExists);

/**
 * Members' accounts: the append-only ledger (LedgerService records by hand, AccountsService posts a month's charges
 * for billing), balances and statements (AccountsQueries), statements as CSV and PDF (StatementExportService);
 * paying the mess (PaymentClaimsService: UPI links and claims; BankStatementService; GatewayPaymentsService, whose webhook's inbox GatewayEventsProcessor records; each
 * recording through PaymentRecorder, once per reference).
 */
@Module({
  imports: [MessConfigModule, AuditTrailModule, UsersModule],
  controllers: [AccountsController, PaymentsController, PaymentGatewayWebhookController],
  providers: [
    AccountsMemberData,
    AccountsRepository,
    AccountsService,
    AccountsQueries,
    LedgerService,
    StatementExportService,
    PaymentsRepository,
    PaymentRecorder,
    PaymentClaimsService,
    BankStatementService,
    GatewayPaymentsService,
    GatewayEventsRepository,
    GatewayEventsProcessor,
    PaymentGatewayClient,
  ],
  exports: [AccountsService, AccountsMemberData],
})
export class AccountsModule {}
