import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type * as Nodemailer from 'nodemailer';
import { AppConfig } from '../../../config/app-config';
import type { MailSettings } from '../../../config/notifications-config';
import { DeliveryError, DeliveryErrors } from './delivery-error';
import { optionalPackage } from '../../../common/runtime/optional-package';

export interface EmailMessage {
  to: string;
  fromName: string;
  subject: string;
  html: string;
  text: string;
  /** A stored notification's id: the Message-ID `<id@sender's domain>`, the same whenever it is sent again. */
  notificationId?: string;
}

/** Email over SMTP with the configured sender account (an app password). */
@Injectable()
export class EmailChannel implements OnModuleDestroy {
  private readonly logger = new Logger('Email');
  private readonly settings: MailSettings;
  private readonly transport?: Nodemailer.Transporter;

  constructor(config: AppConfig) {
    this.settings = config.notifications.mail;
    if (!this.settings.configured) {
      this.logger.warn(
        `Email notifications are disabled: the mail provider is not configured (${this.settings.missing.join(', ')} not set)`,
      );
      return;
    }
    // Pooled: a fan-out reuses a few open connections instead of a TCP and TLS handshake plus a login per message.
    const nodemailer = optionalPackage<typeof Nodemailer>('nodemailer');
    this.transport = nodemailer.createTransport({
      pool: true,
      maxConnections: this.settings.maxConnections,
      maxMessages: this.settings.maxMessages,
      host: this.settings.host,
      port: this.settings.port,
      secure: this.settings.secure,
      auth: { user: this.settings.email, pass: this.settings.password },
      connectionTimeout: this.settings.timeoutMs,
      greetingTimeout: this.settings.timeoutMs,
      socketTimeout: this.settings.timeoutMs,
    });
  }

  get enabled(): boolean {
    return this.transport !== undefined;
  }

  /** The configured sender address, which also receives the test email. */
  get senderAddress(): string | undefined {
    return this.settings.email;
  }

  async send(message: EmailMessage): Promise<{ messageId: string }> {
    if (!this.transport) throw new DeliveryError('email', DeliveryErrors.mailNotConfigured, true);
    try {
      const info = await this.transport.sendMail({
        from: { name: message.fromName, address: this.settings.email! },
        to: message.to,
        subject: message.subject,
        html: message.html,
        text: message.text,
        ...(message.notificationId
          ? { messageId: `<${message.notificationId}@${this.settings.email!.split('@').pop()}>` }
          : {}),
      });
      return { messageId: String(info.messageId ?? '') };
    } catch (error) {
      throw classifyMailError(error);
    }
  }

  onModuleDestroy(): void {
    this.transport?.close();
  }
}

const UNREACHABLE = new Set([
  'ECONNECTION',
  'ETIMEDOUT',
  'ESOCKET',
  'EDNS',
  'ETLS',
  'ECONNREFUSED',
  'ECONNRESET',
]);

/** Enhanced status codes (RFC 3463) that mean "later", even under a 5xx reply: 5.4.5 is a daily sending limit. */
const TRANSIENT_ENHANCED = new Set(['5.4.5']);

/**
 * SMTP 4xx and connection failures are transient; so is any reply whose enhanced status code is 4.x.x, or a
 * sending limit (5.4.5, "daily user sending quota exceeded"). Other 5xx replies (but 503) and refused recipients
 * are permanent.
 */
export function classifyMailError(error: unknown): DeliveryError {
  const e = error as { code?: unknown; responseCode?: unknown; response?: unknown };
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const responseCode = typeof e?.responseCode === 'number' ? e.responseCode : undefined;
  const enhanced =
    typeof e?.response === 'string'
      ? /^\d{3}[ -]([245]\.\d{1,3}\.\d{1,3})\b/.exec(e.response)?.[1]
      : undefined;
  if (code === 'EAUTH' || code === 'ENOAUTH') {
    return new DeliveryError('email', DeliveryErrors.mailCredentials, false, code);
  }
  if (
    responseCode !== undefined &&
    enhanced &&
    (enhanced.startsWith('4.') || TRANSIENT_ENHANCED.has(enhanced))
  ) {
    return new DeliveryError('email', DeliveryErrors.mailDeferred(responseCode), false, enhanced);
  }
  if (responseCode !== undefined && responseCode >= 500 && responseCode !== 503) {
    const text =
      code === 'EENVELOPE' ? DeliveryErrors.mailRecipientRefused : DeliveryErrors.mailRefused(responseCode);
    return new DeliveryError('email', text, true, String(responseCode));
  }
  if (responseCode !== undefined && responseCode >= 400) {
    return new DeliveryError('email', DeliveryErrors.mailDeferred(responseCode), false, String(responseCode));
  }
  if (code === 'EENVELOPE')
    return new DeliveryError('email', DeliveryErrors.mailRecipientRefused, true, code);
  if (code && UNREACHABLE.has(code))
    return new DeliveryError('email', DeliveryErrors.mailUnreachable, false, code);
  return new DeliveryError('email', DeliveryErrors.mailFailed, false, code);
}
