import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type CurrentMember } from '../../common/auth/auth.decorators';
import { badRequest, conflict, unavailable } from '../../common/errors/api-error';
import { inMess } from '../../common/tenancy/mess-scope';
import { localParts } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import { AccountsRepository } from './accounts.repository';
import type { PaymentMethod } from './accounts.schema';
import { GATEWAY_NOT_CONFIGURED, PaymentGatewayClient } from './payment-gateway.client';
import { outsidePayment, PartlyRecorded, PaymentRecorder } from './payment-recorder';
import { PaymentErrors } from './payments.errors';
import { PaymentsRepository } from './payments.repository';
import type { GatewayOrderRow } from './payments.schema';

/**
 * The payment gateway (extension 2.2): orders for what a member owes, and its signed `payment.captured` webhooks,
 * each gateway payment recorded once in the order's mess.
 */
@Injectable()
export class GatewayPaymentsService {
  private readonly logger = new Logger('Payments');

  constructor(
    private readonly repository: PaymentsRepository,
    private readonly accounts: AccountsRepository,
    private readonly recorder: PaymentRecorder,
    private readonly gateway: PaymentGatewayClient,
    private readonly config: AppConfig,
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
   * A gateway event whose signature verifies. `payment.captured` for one of our orders records one payment to the
   * order's member, in the order's mess; anything else (another event, an order not ours) records nothing.
   * Answers whether a payment was recorded.
   */
  async webhook(raw: Buffer, signature: string | undefined): Promise<boolean> {
    if (!this.gateway.verifies(raw, signature)) throw badRequest(PaymentErrors.badSignature);
    let event: GatewayEvent;
    try {
      event = JSON.parse(raw.toString('utf8')) as GatewayEvent;
    } catch {
      throw badRequest(PaymentErrors.badEvent);
    }
    if (event?.event !== 'payment.captured') return false;
    const payment = event.payload?.payment?.entity;
    if (!payment || typeof payment.id !== 'string' || typeof payment.order_id !== 'string') {
      this.logger.warn('payment.captured without a payment id or order id: ignored');
      return false;
    }
    const order = await this.repository.findOrderAcrossMesses(payment.order_id);
    if (!order) {
      this.logger.warn(`payment.captured for an order that is not ours (${payment.order_id}): ignored`);
      return false;
    }
    const amountPaise = Number(payment.amount);
    if (!Number.isSafeInteger(amountPaise) || amountPaise <= 0) {
      this.logger.warn(`payment.captured ${payment.id} with amount ${payment.amount}: ignored`);
      return false;
    }
    return inMess(order.messId, () => this.recordGatewayPayment(order, payment, amountPaise));
  }

  private async recordGatewayPayment(
    order: GatewayOrderRow,
    payment: GatewayPayment,
    amountPaise: number,
  ): Promise<boolean> {
    const capturedAt = new Date(Number(payment.created_at) * 1000);
    const date = localParts(
      Number.isFinite(capturedAt.getTime()) ? capturedAt : new Date(),
      this.config.messTimezone,
    ).date;
    const rrn = payment.acquirer_data?.rrn;
    const references = [payment.id, ...(typeof rrn === 'string' && /^[0-9]{12}$/.test(rrn) ? [rrn] : [])];
    const entry = await this.repository
      .transaction(async (tx) => {
        const recorded = await this.recorder.recordOnce(
          tx,
          outsidePayment({
            userId: order.userId,
            amountPaise,
            date,
            method: gatewayMethod(payment.method),
            reference: payment.id.slice(0, 100),
            source: 'gateway',
            sourceId: payment.id,
            references,
            actorId: null,
          }),
        );
        if (recorded) await this.repository.markOrderPaid(tx, order.id);
        return recorded;
      })
      .catch((error: unknown) => {
        if (error instanceof PartlyRecorded) return undefined;
        throw error;
      });
    if (!entry) return false;
    this.recorder.publish(entry, await this.accounts.balanceOf(entry.userId), order.userId);
    return true;
  }
}

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

function gatewayMethod(method: string | undefined): PaymentMethod {
  if (method === 'upi' || method === 'card') return method;
  if (method === 'netbanking') return 'bank';
  return 'other';
}
