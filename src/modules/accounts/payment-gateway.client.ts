import { Injectable } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError, unavailable } from '../../common/errors/api-error';
import { AppConfig } from '../../config/app-config';

export const GATEWAY_NOT_CONFIGURED = 'Online payments are not configured';
export const GATEWAY_UNAVAILABLE = 'The payment gateway did not answer; try again';
const TIMEOUT_MS = 10_000;

/** An order as the Orders API answers it (the fields we read). */
export interface GatewayOrder {
  id: string;
  amount: number;
  currency: string;
  status: string;
}

/**
 * A small typed client of the gateway's Orders API (`POST {PAY_API_BASE_URL}/v1/orders`, HTTP Basic with the key
 * id and secret), and the webhook signature check (hex HMAC-SHA256 of the raw body under PAY_WEBHOOK_SECRET).
 */
@Injectable()
export class PaymentGatewayClient {
  constructor(private readonly config: AppConfig) {}

  get configured(): boolean {
    const { keyId, keySecret, webhookSecret } = this.config.payments;
    return Boolean(keyId && keySecret && webhookSecret);
  }

  get keyId(): string {
    return this.config.payments.keyId ?? '';
  }

  /** 503 when the gateway is not configured or does not answer well; the order otherwise. */
  async createOrder(body: {
    amountPaise: number;
    receipt: string;
    notes: Record<string, string>;
  }): Promise<GatewayOrder> {
    if (!this.configured) throw unavailable(GATEWAY_NOT_CONFIGURED);
    const { keyId, keySecret, apiBaseUrl } = this.config.payments;
    let response: Response;
    try {
      response = await fetch(`${apiBaseUrl}/v1/orders`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${keyId}:${keySecret}`).toString('base64')}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          amount: body.amountPaise,
          currency: 'INR',
          receipt: body.receipt,
          notes: body.notes,
        }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch {
      throw unavailable(GATEWAY_UNAVAILABLE);
    }
    const answer = (await response.json().catch(() => undefined)) as Partial<GatewayOrder> | undefined;
    if (!response.ok || typeof answer?.id !== 'string')
      throw new ApiError(502, `The payment gateway refused the order (HTTP ${response.status})`);
    return {
      id: answer.id,
      amount: Number(answer.amount),
      currency: answer.currency ?? 'INR',
      status: answer.status ?? 'created',
    };
  }

  /** Whether `signature` is the hex HMAC-SHA256 of `raw` under the webhook secret (constant time). */
  verifies(raw: Buffer, signature: string | undefined): boolean {
    const secret = this.config.payments.webhookSecret;
    if (!secret || !signature || !/^[0-9a-f]{64}$/i.test(signature)) return false;
    const expected = createHmac('sha256', secret).update(raw).digest();
    return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
  }
}
