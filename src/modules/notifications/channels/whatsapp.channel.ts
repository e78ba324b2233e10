import { Injectable, Logger } from '@nestjs/common';
import type Twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient';
import { AppConfig } from '../../../config/app-config';
import { DEFAULT_MSG_API_BASE_URL, type MessagingSettings } from '../../../config/notifications-config';
import { DeliveryError, DeliveryErrors } from './delivery-error';
import { optionalPackage } from '../../../common/runtime/optional-package';

/**
 * The provider's request client, sending to MSG_API_BASE_URL instead of https://api.twilio.com, so staging and the
 * tests talk to a local server that answers like the Messages API. Paths, auth and form encoding are untouched.
 * (A class made when the channel is configured: the SDK is loaded only then.)
 */
function baseUrlRequestClient(
  sdk: typeof Twilio,
  base: URL,
  options: ConstructorParameters<typeof Twilio.RequestClient>[0],
): RequestClient {
  class BaseUrlRequestClient extends sdk.RequestClient {
    override request<TData>(opts: RequestClient.RequestOptions<TData>) {
      const target = new URL(opts.uri);
      const prefix = base.pathname.replace(/\/+$/, '');
      return super.request<TData>({
        ...opts,
        uri: `${base.origin}${prefix}${target.pathname}${target.search}`,
      });
    }
  }
  return new BaseUrlRequestClient(options);
}

/** WhatsApp through the messaging provider: `whatsapp:<sender>` to `whatsapp:<member's E.164 phone>`. */
@Injectable()
export class WhatsAppChannel {
  private readonly logger = new Logger('WhatsApp');
  private readonly settings: MessagingSettings;
  private readonly client?: Twilio.Twilio;

  constructor(config: AppConfig) {
    this.settings = config.notifications.messaging;
    if (!this.settings.configured) {
      this.logger.warn(
        `WhatsApp notifications are disabled: the messaging provider is not configured (${this.settings.missing.join(', ')} not set)`,
      );
      return;
    }
    const options = { timeout: this.settings.timeoutMs, autoRetry: false };
    const sdk = optionalPackage<typeof Twilio>('twilio');
    this.client = sdk(this.settings.accountSid, this.settings.authToken, {
      ...options,
      ...(this.settings.apiBaseUrl !== DEFAULT_MSG_API_BASE_URL
        ? { httpClient: baseUrlRequestClient(sdk, new URL(this.settings.apiBaseUrl), options) }
        : {}),
    });
  }

  get enabled(): boolean {
    return this.client !== undefined;
  }

  /**
   * Sends `title`, a blank line, then `content`. Throws a DeliveryError for what the provider refuses at once
   * (invalid number, rate limit, account, outage). Acceptance is not delivery: the provider answers most channel
   * failures (sandbox not joined, outside the window, unregistered number) later, on the message; see `status`.
   */
  async send(
    to: string | null | undefined,
    title: string,
    content: string,
  ): Promise<{ messageId: string; status: MessageStatus }> {
    if (this.client && !to) throw new DeliveryError('whatsapp', DeliveryErrors.phoneUnavailable, true);
    const message = await this.call((client) =>
      client.messages.create({
        from: `whatsapp:${this.settings.phoneNumber}`,
        to: `whatsapp:${to}`,
        body: messageBody(title, content),
      }),
    );
    return { messageId: message.sid, status: message.status as MessageStatus };
  }

  /** The message's current status and, once it failed, the provider's error code. */
  async status(messageId: string): Promise<{ status: MessageStatus; errorCode?: number }> {
    const message = await this.call((client) => client.messages(messageId).fetch());
    return {
      status: message.status as MessageStatus,
      ...(message.errorCode ? { errorCode: Number(message.errorCode) } : {}),
    };
  }

  /**
   * Messages to `to` sent at or after `since` (the provider's own record), newest first, only those with this
   * title and content when given: how a retry after an unknown outcome (a timeout) finds out whether the earlier
   * attempt was taken, instead of sending again.
   */
  async sentSince(
    to: string,
    since: Date,
    message?: { title: string; content: string },
  ): Promise<{ messageId: string; status: MessageStatus; errorCode?: number }[]> {
    const messages = await this.call((client) =>
      client.messages.list({
        to: `whatsapp:${to}`,
        from: `whatsapp:${this.settings.phoneNumber}`,
        dateSentAfter: since,
        limit: 20,
      }),
    );
    const body = message ? messageBody(message.title, message.content) : undefined;
    return messages
      .filter((m) => body === undefined || m.body === body)
      .map((m) => ({
        messageId: m.sid,
        status: m.status as MessageStatus,
        ...(m.errorCode ? { errorCode: Number(m.errorCode) } : {}),
      }));
  }

  /** One request to the provider: disabled without settings; its refusals become DeliveryErrors. */
  private async call<T>(request: (client: Twilio.Twilio) => Promise<T>): Promise<T> {
    if (!this.client) throw new DeliveryError('whatsapp', DeliveryErrors.messagingNotConfigured, true);
    try {
      return await request(this.client);
    } catch (error) {
      throw classifyMessagingError(error);
    }
  }
}

/** The text of a WhatsApp message: the title, a blank line, then the content. */
function messageBody(title: string, content: string): string {
  return `${title}\n\n${content}`;
}

/**
 * True when a send failed without an answer (a timeout): the provider may have taken the message, so it is neither
 * sent again blindly nor given back to the monthly allowance.
 */
export function outcomeUnknown(error: unknown): boolean {
  return (
    error instanceof DeliveryError &&
    error.channel === 'whatsapp' &&
    error.message === DeliveryErrors.messagingTimeout
  );
}

/** The provider's message statuses. */
export type MessageStatus =
  | 'queued'
  | 'accepted'
  | 'scheduled'
  | 'sending'
  | 'sent'
  | 'delivered'
  | 'read'
  | 'undelivered'
  | 'failed'
  | 'canceled'
  | 'receiving'
  | 'received'
  | 'partially_delivered';

/**
 * Where a status leaves the message: `delivered` once the provider handed it to WhatsApp (`sent`) or further,
 * `failed` when it gave up on it, `pending` while it is still on its way.
 */
export function messageState(status: MessageStatus): 'delivered' | 'failed' | 'pending' {
  if (status === 'sent' || status === 'delivered' || status === 'read' || status === 'partially_delivered')
    return 'delivered';
  if (status === 'failed' || status === 'undelivered' || status === 'canceled') return 'failed';
  return 'pending';
}

/** A failed message's error code (from the Message resource) as the same DeliveryError an immediate refusal gives. */
export function classifyMessageFailure(errorCode: number | undefined): DeliveryError {
  if (errorCode === undefined) {
    return new DeliveryError('whatsapp', DeliveryErrors.messagingRefused('undelivered'), true, 'undelivered');
  }
  return classifyMessagingError({ status: 400, code: errorCode });
}

const NOT_REGISTERED = new Set([63015, 63016, 63003]);
const INVALID_NUMBER = new Set([21211, 21614, 21612, 63024, 21408]);
const RATE_LIMITED = new Set([20429, 63018, 14107]);
const ACCOUNT_DISABLED = new Set([20003, 20005, 10001, 20008]);
const NETWORK_TIMEOUT = new Set(['ECONNABORTED', 'ETIMEDOUT', 'ERR_CANCELED']);

/**
 * Turns the provider's error (its JSON body `{code, message, more_info, status}`, or a network error) into a
 * DeliveryError. The provider's message is dropped on purpose: it can quote the recipient's number.
 */
export function classifyMessagingError(error: unknown): DeliveryError {
  const e = error as { status?: unknown; code?: unknown };
  if (typeof e?.status === 'number') {
    const status = e.status;
    const code = typeof e.code === 'number' ? e.code : undefined;
    const codeText = code === undefined ? `HTTP ${status}` : String(code);
    if (code !== undefined && NOT_REGISTERED.has(code)) {
      return new DeliveryError('whatsapp', DeliveryErrors.notRegistered, true, codeText);
    }
    if (code !== undefined && INVALID_NUMBER.has(code)) {
      return new DeliveryError('whatsapp', DeliveryErrors.invalidNumber, true, codeText);
    }
    if (status === 429 || (code !== undefined && RATE_LIMITED.has(code))) {
      return new DeliveryError('whatsapp', DeliveryErrors.rateLimited, false, codeText);
    }
    if (status === 401 || status === 403 || (code !== undefined && ACCOUNT_DISABLED.has(code))) {
      return new DeliveryError('whatsapp', DeliveryErrors.accountDisabled, true, codeText);
    }
    if (status >= 500) {
      return new DeliveryError('whatsapp', DeliveryErrors.messagingUnavailable(status), false, codeText);
    }
    return new DeliveryError('whatsapp', DeliveryErrors.messagingRefused(codeText), true, codeText);
  }
  const networkCode = typeof e?.code === 'string' ? e.code : undefined;
  if (networkCode && NETWORK_TIMEOUT.has(networkCode)) {
    return new DeliveryError('whatsapp', DeliveryErrors.messagingTimeout, false, networkCode);
  }
  return new DeliveryError('whatsapp', DeliveryErrors.messagingUnreachable, false, networkCode);
}
