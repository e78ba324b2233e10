import { Injectable, Logger } from '@nestjs/common';
import { maskPhone } from '../../common/phone/phone';
import { Clock } from '../../common/time/clock';
import type { DeliveryError } from './channels/delivery-error';
import { ChannelSender, type Outcomes, type RecordOutcomes } from './channel-sender';
import type { Channel } from './notification-types';
import { afterFailure, nextStep } from './routing';
import { type OutboundMessage, type Recipient, WhatsAppConfirmation } from './whatsapp-confirmation';

export interface RouteResult {
  /** `check`: WhatsApp accepted the message and its final status is to be read again at `checkAt`. */
  kind: 'sent' | 'failed' | 'retry' | 'check';
  channels: Channel[];
  outcomes: Outcomes;
  via?: Channel;
  fallbackUsed: boolean;
  messageId?: string;
  /** The last failure's text (also set when a fallback succeeded). */
  error?: string;
  checkAt?: Date;
}

/** Takes a message along its route of channels, falling back from one to the next as the routing rules say. */
@Injectable()
export class RouteRunner {
  private readonly logger = new Logger('Notifications');

  constructor(
    private readonly sender: ChannelSender,
    private readonly confirmation: WhatsAppConfirmation,
    private readonly clock: Clock,
  ) {}

  /**
   * Tries the channels of `route` in order until one succeeds. A failed WhatsApp send before email logs a warning,
   * then that the fallback is attempted, then the fallback's success. A transient failure of the last channel ends
   * in `retry` while retries are left. A WhatsApp message the provider accepted counts only once its status says it
   * went out: its status is read at once, and, while it is still on its way, again at `checkAt` (`check`) until
   * MSG_STATUS_DEADLINE_SECONDS after the acceptance. Without `canWait` (the test send) an accepted message
   * whose first status read is not final counts as sent.
   */
  async run(
    route: Channel[],
    outcomes: Outcomes,
    channels: Channel[],
    recipient: Recipient,
    message: OutboundMessage,
    options: {
      retriesLeft: boolean;
      canWait?: boolean;
      log: Record<string, unknown>;
      record?: RecordOutcomes;
    },
  ): Promise<RouteResult> {
    let lastError: string | undefined;
    for (;;) {
      const step = nextStep(route, outcomes);
      if (step.kind === 'sent') {
        if (step.fallbackUsed) {
          this.logger.log({ ...options.log, channel: step.via }, 'Fallback email sent');
        }
        return {
          kind: 'sent',
          channels,
          outcomes,
          via: step.via,
          fallbackUsed: step.fallbackUsed,
          messageId: step.messageId,
          // why the fallback was needed, also when that failure was recorded by an earlier attempt
          error: lastError ?? lastFailure(route, outcomes),
        };
      }
      if (step.kind === 'failed')
        return { kind: 'failed', channels, outcomes, fallbackUsed: false, error: step.error };

      let failure: DeliveryError | undefined;
      if (step.kind === 'confirm') {
        const confirmed = await this.confirmation.confirm(step.outcome, options.canWait ?? false);
        if (confirmed.kind === 'wait') {
          outcomes[step.channel] = confirmed.outcome;
          await options.record?.(outcomes, channels);
          return { kind: 'check', channels, outcomes, fallbackUsed: false, checkAt: confirmed.at };
        }
        if (confirmed.kind === 'delivered') {
          outcomes[step.channel] = { ok: true, messageId: step.outcome.messageId, at: step.outcome.at };
        } else {
          failure = confirmed.failure;
          // the provider's record of the failure replaces the acceptance; a retry sends afresh
          delete outcomes[step.channel];
        }
      } else {
        if (step.fallback)
          this.logger.log({ ...options.log, channel: step.channel }, 'Falling back to email');
        failure = await this.sender.attempt(
          step.channel,
          step.inFlightSince,
          outcomes,
          channels,
          recipient,
          message,
          options,
        );
      }

      if (failure) {
        lastError = failure.message;
        const next = afterFailure(route, step.channel, failure, options.retriesLeft);
        this.logger.warn(
          {
            ...options.log,
            channel: step.channel,
            code: failure.code,
            permanent: failure.permanent,
            ...(step.channel === 'whatsapp' ? { phone: maskPhone(recipient.phone) } : {}),
            reason: failure.message,
            next,
          },
          `${step.channel === 'whatsapp' ? 'WhatsApp' : 'Email'} send failed`,
        );
        if (next === 'retry') {
          await options.record?.(outcomes, channels);
          return { kind: 'retry', channels, outcomes, fallbackUsed: false, error: failure.message };
        }
        outcomes[step.channel] = {
          ok: false,
          error: failure.message,
          ...(failure.code ? { code: failure.code } : {}),
          at: this.clock.now().toISOString(),
        };
      }
      await options.record?.(outcomes, channels);
    }
  }
}

function lastFailure(route: Channel[], outcomes: Outcomes): string | undefined {
  const failures = route.map((channel) => outcomes[channel]).filter((o) => o?.ok === false);
  const last = failures.at(-1);
  return last?.ok === false ? last.error : undefined;
}
