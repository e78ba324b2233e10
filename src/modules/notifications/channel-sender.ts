import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/time/clock';
import { AppConfig } from '../../config/app-config';
import { MessConfigService } from '../mess-config';
import { asDeliveryError, DeliveryError, DeliveryErrors } from './channels/delivery-error';
import { EmailChannel } from './channels/email.channel';
import { outcomeUnknown, WhatsAppChannel } from './channels/whatsapp.channel';
import { renderEmail } from './email-template';
import type { Channel } from './notification-types';
import { NotificationsRepository } from './notifications.repository';
import type { ChannelOutcome } from './notifications.schema';
import {
  allowanceMonth,
  type OutboundMessage,
  type Recipient,
  type SendState,
  WhatsAppConfirmation,
} from './whatsapp-confirmation';

export type Outcomes = Partial<Record<Channel, ChannelOutcome>>;

/** Writes the outcomes so far (a delivery job's row); absent for the test send, which keeps nothing. */
export type RecordOutcomes = (outcomes: Outcomes, channels: Channel[]) => Promise<void>;

/** Sends one message through one channel, and writes down what became of it. */
@Injectable()
export class ChannelSender {
  private readonly logger = new Logger('Notifications');

  constructor(
    private readonly repository: NotificationsRepository,
    private readonly messConfig: MessConfigService,
    private readonly email: EmailChannel,
    private readonly whatsapp: WhatsAppChannel,
    private readonly confirmation: WhatsAppConfirmation,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  /**
   * One attempt through `channel`, its outcome set in `outcomes` (and `channel` added to `channels`): success, or
   * the message accepted and its status to be read, or still in flight when the answer is unknown. Returns the
   * failure, if any, for the route to decide what comes next; the failed channel's outcome is left unset.
   */
  async attempt(
    channel: Channel,
    /** An earlier send through this channel started then and its outcome is unknown. */
    inFlightSince: string | undefined,
    outcomes: Outcomes,
    channels: Channel[],
    recipient: Recipient,
    message: OutboundMessage,
    options: { log: Record<string, unknown>; record?: RecordOutcomes },
  ): Promise<DeliveryError | undefined> {
    if (!channels.includes(channel)) channels.push(channel);
    const at = this.clock.now().toISOString();
    if (channel === 'whatsapp' && options.record && this.whatsapp.enabled && recipient.phone) {
      // In flight from here on: should the answer never come, a retry looks the message up before sending.
      outcomes.whatsapp = { ok: 'sending', at: inFlightSince ?? at };
      await options.record(outcomes, channels);
    }
    try {
      const sent =
        (inFlightSince &&
          (await this.confirmation.findInFlight(recipient, message, inFlightSince, options.log))) ||
        (await this.send(channel, recipient, message, { reservedSince: inFlightSince }));
      if (sent.state === 'failed') {
        delete outcomes[channel];
        return sent.failure;
      }
      outcomes[channel] =
        sent.state === 'pending'
          ? { ok: 'accepted', messageId: sent.messageId, at: inFlightSince ?? at, checks: 0 }
          : { ok: true, messageId: sent.messageId, at };
      return undefined;
    } catch (caught) {
      if (!(caught instanceof DeliveryError)) {
        this.logger.error(
          { ...options.log, reason: (caught as Error)?.message },
          'Unexpected error while sending',
        );
      }
      const failure = asDeliveryError(channel, caught);
      // Still unknown (a timeout, or the look-up failed): stays in flight for the retry to look up.
      if (channel === 'whatsapp' && (outcomeUnknown(caught) || (inFlightSince && !failure.permanent))) {
        outcomes.whatsapp = { ok: 'sending', at: inFlightSince ?? at };
      } else delete outcomes[channel];
      return failure;
    }
  }

  /**
   * One message through one channel; WhatsApp also takes one message from the month's allowance. A WhatsApp
   * message comes back `pending` when the provider accepted it and its status is not final yet, `failed` when
   * the provider already gave up on it.
   */
  private async send(
    channel: Channel,
    recipient: Recipient,
    message: OutboundMessage,
    /** An earlier send of this message, started then, already took one from the allowance and never gave it back. */
    options: { reservedSince?: string } = {},
  ): Promise<SendState> {
    if (channel === 'email') {
      if (!this.email.enabled) throw new DeliveryError('email', DeliveryErrors.mailNotConfigured, true);
      if (!recipient.email) throw new DeliveryError('email', DeliveryErrors.mailRecipientRefused, true);
      const { messName } = await this.messConfig.settings();
      const rendered = renderEmail({ messName, title: message.title, content: message.content });
      const { messageId } = await this.email.send({
        to: recipient.email,
        fromName: messName,
        ...rendered,
        ...(message.notificationId ? { notificationId: message.notificationId } : {}),
      });
      return { state: 'delivered', messageId };
    }
    if (!this.whatsapp.enabled)
      throw new DeliveryError('whatsapp', DeliveryErrors.messagingNotConfigured, true);
    if (!recipient.phone) throw new DeliveryError('whatsapp', DeliveryErrors.phoneUnavailable, true);
    const { monthlyLimit } = this.config.notifications.messaging;
    const month = allowanceMonth(
      options.reservedSince ? new Date(options.reservedSince) : this.clock.now(),
      this.config.messTimezone,
    );
    if (!options.reservedSince && !(await this.repository.reserveMessage(month, monthlyLimit))) {
      throw new DeliveryError('whatsapp', DeliveryErrors.monthlyLimit(monthlyLimit), true, 'MONTHLY_LIMIT');
    }
    let sent: Awaited<ReturnType<WhatsAppChannel['send']>>;
    try {
      sent = await this.whatsapp.send(recipient.phone, message.title, message.content);
    } catch (error) {
      // A timeout may have been taken: the allowance is kept (the retry finds out, see findInFlight).
      if (!outcomeUnknown(error)) await this.repository.releaseMessage(month);
      throw error;
    }
    return this.confirmation.afterStatus(sent.messageId, sent.status, undefined, month);
  }
}
