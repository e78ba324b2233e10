import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/time/clock';
import { localParts, monthOf } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import { asDeliveryError, DeliveryError, DeliveryErrors } from './channels/delivery-error';
import {
  classifyMessageFailure,
  type MessageStatus,
  messageState,
  WhatsAppChannel,
} from './channels/whatsapp.channel';
import { NotificationsRepository } from './notifications.repository';
import type { AcceptedOutcome } from './notifications.schema';

export interface Recipient {
  email?: string | null;
  phone?: string | null;
}

export interface OutboundMessage {
  title: string;
  content: string;
  /**
   * The stored notification's id: its email's Message-ID, the same on every attempt, so a mail sent again after a
   * crash between the SMTP server's acceptance and the outcome's record is recognisably the same message.
   */
  notificationId?: string;
}

/** What a WhatsApp message's status says: gone out, still on its way, or given up on by the provider. */
export type SendState =
  | { state: 'delivered' | 'pending'; messageId: string }
  | { state: 'failed'; messageId: string; failure: DeliveryError };

/** The month of the WhatsApp allowance a message sent at `instant` counts against (the mess's local month). */
export function allowanceMonth(instant: Date, timezone: string): string {
  return monthOf(localParts(instant, timezone).date);
}

/**
 * Following a WhatsApp message the provider accepted to its final status: reading the status (again, with backoff,
 * until MSG_STATUS_DEADLINE_SECONDS), adopting the message of a send whose answer never came, and giving a message
 * the provider gave up on back to the monthly allowance.
 */
@Injectable()
export class WhatsAppConfirmation {
  private readonly logger = new Logger('Notifications');

  constructor(
    private readonly repository: NotificationsRepository,
    private readonly whatsapp: WhatsAppChannel,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  /** Reads an accepted WhatsApp message's status: final now, or when to read it again. */
  async confirm(
    accepted: AcceptedOutcome,
    canWait: boolean,
  ): Promise<
    | { kind: 'delivered' }
    | { kind: 'failed'; failure: DeliveryError }
    | { kind: 'wait'; outcome: AcceptedOutcome; at: Date }
  > {
    const { checkSeconds, confirmSeconds } = this.config.notifications.messaging;
    let read: { state: 'delivered' | 'pending' } | { state: 'failed'; failure: DeliveryError };
    try {
      const { status, errorCode } = await this.whatsapp.status(accepted.messageId);
      read = await this.afterStatus(
        accepted.messageId,
        status,
        errorCode,
        this.monthOf(new Date(accepted.at)),
      );
    } catch (error) {
      // Not knowing the status is not a failure of the message: read it again later.
      this.logger.warn(
        { messageId: accepted.messageId, reason: asDeliveryError('whatsapp', error).message },
        'WhatsApp status could not be read',
      );
      read = { state: 'pending' };
    }
    if (read.state === 'delivered') return { kind: 'delivered' };
    if (read.state === 'failed') return { kind: 'failed', failure: read.failure };
    if (!canWait) return { kind: 'delivered' };
    const now = this.clock.now().getTime();
    const deadline = new Date(accepted.at).getTime() + confirmSeconds * 1000;
    if (now >= deadline) {
      // The message may still go out, so it is neither sent again nor given back to the allowance.
      return {
        kind: 'failed',
        failure: new DeliveryError('whatsapp', DeliveryErrors.messagingUnconfirmed, true, 'UNCONFIRMED'),
      };
    }
    const checks = accepted.checks + 1;
    const delay = Math.min(checkSeconds * 1000 * 2 ** (checks - 1), deadline - now);
    return { kind: 'wait', outcome: { ...accepted, checks }, at: new Date(now + delay) };
  }

  /**
   * After a send whose answer never came (started at `since`): the provider's record of a message with this text to
   * the member since then, adopted (its id, then its status followed) instead of sending again. Undefined when the
   * provider has none: the earlier send was not taken. Looks back a minute before `since` for clock skew.
   */
  async findInFlight(
    recipient: Recipient,
    message: OutboundMessage,
    since: string,
    log: Record<string, unknown>,
  ): Promise<SendState | undefined> {
    if (!this.whatsapp.enabled || !recipient.phone) return undefined;
    const after = new Date(new Date(since).getTime() - 60_000);
    const [found] = await this.whatsapp.sentSince(recipient.phone, after, message);
    if (!found) return undefined;
    this.logger.log(
      { ...log, messageId: found.messageId, status: found.status },
      'WhatsApp message of an unanswered send found; following it instead of sending again',
    );
    return this.afterStatus(found.messageId, found.status, found.errorCode, this.monthOf(new Date(since)));
  }

  /** What a status read says of the message; one the provider gave up on goes back to `month`'s allowance. */
  async afterStatus(
    messageId: string,
    status: MessageStatus,
    errorCode: number | undefined,
    month: string,
  ): Promise<SendState> {
    const state = messageState(status);
    if (state !== 'failed') return { state, messageId };
    // The provider gave up on the message: it does not count against the allowance.
    await this.repository.releaseMessage(month);
    return { state, messageId, failure: classifyMessageFailure(errorCode) };
  }

  private monthOf(instant: Date): string {
    return allowanceMonth(instant, this.config.messTimezone);
  }
}
