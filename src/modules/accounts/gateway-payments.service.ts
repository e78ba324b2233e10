import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type CurrentMember } from '../../common/auth/auth.decorators';
import { badRequest, conflict, unavailable } from '../../common/errors/api-error';
import { AccountsRepository } from './accounts.repository';
import { GatewayEventsProcessor } from './gateway-events.processor';
import { GatewayEventsRepository } from './gateway-events.repository';
import { GATEWAY_NOT_CONFIGURED, PaymentGatewayClient } from './payment-gateway.client';
import { PaymentErrors } from './payments.errors';
import { PaymentsRepository } from './payments.repository';
import type { GatewayOrderRow } from './payments.schema';

/**
 * The payment gateway (extension 2.2): orders for what a member owes, and its signed `payment.captured` webhooks,
 * kept on receipt and each gateway payment recorded once in the order's mess (GatewayEventsProcessor).
 */
@Injectable()
export class GatewayPaymentsService {
  private readonly logger = new Logger('Payments');

  constructor(
    private readonly repository: PaymentsRepository,
    private readonly accounts: AccountsRepository,
    private readonly gateway: PaymentGatewayClient,
    private readonly inbox: GatewayEventsRepository,
    private readonly processor: GatewayEventsProcessor,
  ) {}

  async createOrder(
    member: CurrentMember,
    amountPaise?: number,
  ): Promise<{ order: GatewayOrderRow; keyId: string }> {
    if (!this.gateway.configured) throw unavailable(GATEWAY_NOT_CONFIGURED);
    const paise = amountPaise ?? (await this.accounts.balanceOf(member.id));
    if (paise <= 0) throw conflict(PaymentErrors.nothingDue);
    const receipt = `mess-${randomUUID().slice(0, 18)}`;
    const created = await this.gateway.createOrder({
      amountPaise: paise,
      receipt,
      notes: { userId: member.id, messId: member.messId ?? '', fullName: member.fullName.slice(0, 200) },
    });
    const order = await this.repository.insertOrder({
      userId: member.id,
      gatewayOrderId: created.id,
      amountPaise: paise,
    });
    return { order, keyId: this.gateway.keyId };
  }

  /**
   * A gateway event whose signature verifies. A `payment.captured` is stored in the gateway's inbox, once per payment
   * id, and recorded from there in a moment (GatewayEventsProcessor): to the order's member in the order's mess, or
   * nothing for an order not ours. Anything else is acknowledged and ignored. Once this resolves the event is kept,
   * so the gateway may stop retrying.
   */
  async webhook(raw: Buffer, signature: string | undefined): Promise<void> {
    if (!this.gateway.verifies(raw, signature)) throw badRequest(PaymentErrors.badSignature);
    let event: GatewayEvent;
    try {
      event = JSON.parse(raw.toString('utf8')) as GatewayEvent;
    } catch {
      throw badRequest(PaymentErrors.badEvent);
    }
    if (event?.event !== 'payment.captured') return;
    const payment = event.payload?.payment?.entity;
    if (!payment || !GATEWAY_ID.test(String(payment.id)) || !GATEWAY_ID.test(String(payment.order_id))) {
      this.logger.warn('payment.captured without a payment id or order id: ignored');
      return;
    }
    const amountPaise = Number(payment.amount);
    if (!Number.isSafeInteger(amountPaise) || amountPaise <= 0) {
      this.logger.warn(
        { paymentId: payment.id, amount: payment.amount },
        'payment.captured without an amount: ignored',
      );
      return;
    }
    const capturedAt = new Date(Number(payment.created_at) * 1000);
    const rrn = payment.acquirer_data?.rrn;
    await this.inbox.insert({
      paymentId: payment.id,
      orderId: payment.order_id,
      amountPaise,
      method: typeof payment.method === 'string' ? payment.method.slice(0, 40) : null,
      capturedAt: Number.isFinite(capturedAt.getTime()) ? capturedAt : null,
      rrn: typeof rrn === 'string' && /^[0-9]{12}$/.test(rrn) ? rrn : null,
      payload: event,
    });
    this.processor.soon();
  }
}

/** A gateway's payment or order id: letters, digits, `_` and `-` (as `pay_…`, `order_…`). */
const GATEWAY_ID = /^[A-Za-z0-9_-]{1,100}$/;

interface GatewayPayment {
  id: string;
  order_id: string;
  amount: number;
  method?: string;
  created_at?: number;
  acquirer_data?: { rrn?: string };
}

interface GatewayEvent {
  event?: string;
  payload?: { payment?: { entity?: GatewayPayment } };
}
