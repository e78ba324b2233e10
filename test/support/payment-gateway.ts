import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from './app';

export interface GatewayOrderRecord {
  id: string;
  amount: number;
  currency: string;
  receipt: string;
  notes: Record<string, string>;
}

/**
 * A real HTTP server on a local port speaking the payment gateway's Orders API (`POST /v1/orders` with HTTP Basic,
 * as Razorpay's), and signing webhook events as the gateway does (hex HMAC-SHA256 of the raw body under the webhook
 * secret, in `X-Razorpay-Signature`).
 */
export class PaymentGateway {
  readonly keyId = 'rzp_test_mess0001';
  readonly keySecret = 'key-secret-0123456789';
  readonly webhookSecret = 'webhook-secret-0123456789';
  readonly orders: GatewayOrderRecord[] = [];
  /** Requests refused for their credentials. */
  refused = 0;
  private server?: Server;
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      void this.handle(request).then(({ status, body }) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  env(): Record<string, string> {
    return {
      PAY_KEY_ID: this.keyId,
      PAY_KEY_SECRET: this.keySecret,
      PAY_WEBHOOK_SECRET: this.webhookSecret,
      PAY_API_BASE_URL: `http://127.0.0.1:${this.port}`,
    };
  }

  /** A `payment.captured` event for an order, as the gateway posts it (the body's exact text). */
  captured(
    orderId: string,
    payment: { id?: string; amount: number; method?: string; rrn?: string; capturedAt?: Date },
  ): { paymentId: string; body: string } {
    const paymentId = payment.id ?? `pay_${randomBytes(7).toString('hex')}`;
    const body = JSON.stringify({
      entity: 'event',
      account_id: 'acc_mess0001',
      event: 'payment.captured',
      contains: ['payment'],
      payload: {
        payment: {
          entity: {
            id: paymentId,
            entity: 'payment',
            amount: payment.amount,
            currency: 'INR',
            status: 'captured',
            order_id: orderId,
            method: payment.method ?? 'upi',
            captured: true,
            created_at: Math.floor((payment.capturedAt ?? new Date()).getTime() / 1000),
            ...(payment.rrn ? { acquirer_data: { rrn: payment.rrn } } : {}),
          },
        },
      },
      created_at: Math.floor(Date.now() / 1000),
    });
    return { paymentId, body };
  }

  sign(body: string, secret = this.webhookSecret): string {
    return createHmac('sha256', secret).update(body).digest('hex');
  }

  /** Posts the event to the service's webhook, signed (or with the signature given). */
  deliver(t: TestApp, body: string, signature = this.sign(body)) {
    return t.request('POST', '/payments/gateway/webhook', {
      body,
      headers: { 'content-type': 'application/json', 'x-razorpay-signature': signature },
    });
  }

  private async handle(request: IncomingMessage): Promise<{ status: number; body: unknown }> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method !== 'POST' || request.url !== '/v1/orders')
      return { status: 404, body: { error: { code: 'BAD_REQUEST_ERROR', description: 'not found' } } };
    const expected = `Basic ${Buffer.from(`${this.keyId}:${this.keySecret}`).toString('base64')}`;
    if (request.headers.authorization !== expected) {
      this.refused += 1;
      return {
        status: 401,
        body: { error: { code: 'BAD_REQUEST_ERROR', description: 'Authentication failed' } },
      };
    }
    const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Omit<GatewayOrderRecord, 'id'>;
    if (!Number.isInteger(input.amount) || input.amount < 100 || input.currency !== 'INR')
      return { status: 400, body: { error: { code: 'BAD_REQUEST_ERROR', description: 'bad order' } } };
    const order = { ...input, id: `order_${randomBytes(7).toString('hex')}` };
    this.orders.push(order);
    return {
      status: 200,
      body: {
        ...order,
        entity: 'order',
        amount_paid: 0,
        amount_due: order.amount,
        status: 'created',
        attempts: 0,
        created_at: Math.floor(Date.now() / 1000),
      },
    };
  }
}
