import { Injectable, Logger } from '@nestjs/common';
import { Outages } from '../../common/outages/outages';
import { OnDomainEvent } from '../../common/events/domain-event-bus';
import { type PaymentEvent } from '../../common/events/event-map';
import { Messages } from './messages';
import { NotificationsService } from './notifications.service';
import { PendingWork } from './pending-work';

/**
 * PAYMENT_RECEIVED: a receipt to the member for each payment recorded on their account, through the durable queue
 * with their channel and switch. The dedupe key is the entry's id, so a receipt is queued once per payment.
 */
@Injectable()
export class PaymentReceiptsListener {
  private readonly logger = new Logger('PaymentReceipts');
  private readonly pending: PendingWork;

  constructor(
    private readonly notifications: NotificationsService,
    outages: Outages,
  ) {
    this.pending = new PendingWork(this.logger, outages);
  }

  /** Resolves when every receipt started so far is queued (tests wait on it). */
  idle(): Promise<void> {
    return this.pending.idle();
  }

  @OnDomainEvent('account.payment-recorded')
  onPaymentRecorded(event: PaymentEvent): void {
    this.pending.track('payment receipt', () => this.notifications.notify([receipt(event)]));
  }

  /** A bank statement's payments: their receipts in one call (queued in batches), not 2,000 calls at once. */
  @OnDomainEvent('account.payments-recorded')
  onPaymentsRecorded(event: { payments: PaymentEvent[] }): void {
    this.pending.track('payment receipts', () => this.notifications.notify(event.payments.map(receipt)));
  }
}

const receipt = (event: PaymentEvent) => ({
  userId: event.userId,
  type: 'PAYMENT_RECEIVED' as const,
  ...Messages.paymentReceived(event),
  dedupeKey: `PAYMENT_RECEIVED:${event.entryId}`,
});
