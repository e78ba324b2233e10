import { Injectable } from '@nestjs/common';
import { OnDomainEvent } from '../../common/events/domain-event-bus';
import { type PaymentEvent } from '../../common/events/event-map';
import { Messages } from './messages';
import { NotificationsService } from './notifications.service';
import { OutboxRelay } from '../outbox';

/**
 * PAYMENT_RECEIVED: a receipt to the member for each payment recorded on their account, through the durable queue
 * with their channel and switch. The dedupe key is the entry's id, so a receipt is queued once per payment.
 *
 * A durable event: it comes from the outbox (written with its change) and may come more than once (a relay that
 * died before marking it done); the dedupe key makes a second run queue nothing. A failure rejects, and the relay
 * hands the event on again later.
 */
@Injectable()
export class PaymentReceiptsListener {
  constructor(
    private readonly notifications: NotificationsService,
    private readonly relay: OutboxRelay,
  ) {}

  /** Resolves when the outbox relay has handed on every event it has been woken for (tests wait on it). */
  idle(): Promise<void> {
    return this.relay.idle();
  }

  @OnDomainEvent('account.payment-recorded')
  async onPaymentRecorded(event: PaymentEvent): Promise<void> {
    await this.notifications.notify([receipt(event)]);
  }

  /** A bank statement's payments: their receipts in one call (queued in batches), not 2,000 calls at once. */
  @OnDomainEvent('account.payments-recorded')
  async onPaymentsRecorded(event: { payments: PaymentEvent[] }): Promise<void> {
    await this.notifications.notify(event.payments.map(receipt));
  }
}

const receipt = (event: PaymentEvent) => ({
  userId: event.userId,
  type: 'PAYMENT_RECEIVED' as const,
  ...Messages.paymentReceived(event),
  dedupeKey: `PAYMENT_RECEIVED:${event.entryId}`,
});
