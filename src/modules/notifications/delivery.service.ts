import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/time/clock';
import { localParts, monthOf } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import { MessConfigService } from '../mess-config/mess-config.service';
import { maskPhone } from '../users/phone';
import { UsersService } from '../users/users.service';
import { DeliveryError, DeliveryErrors } from './channels/delivery-error';
import { EmailChannel } from './channels/email.channel';
import { WhatsAppChannel } from './channels/whatsapp.channel';
import { renderEmail } from './email-template';
import { type Channel, NOTIFICATION_TYPE_INFO } from './notification-types';
import { NotificationsRepository } from './notifications.repository';
import type { ChannelOutcome, NotificationRow } from './notifications.schema';
import { effectivePreferences } from './preferences';
import { afterFailure, nextStep, planRoute } from './routing';

export interface Recipient {
  email?: string | null;
  phone?: string | null;
}

export interface RouteResult {
  kind: 'sent' | 'failed' | 'retry';
  channels: Channel[];
  outcomes: Partial<Record<Channel, ChannelOutcome>>;
  via?: Channel;
  fallbackUsed: boolean;
  messageId?: string;
  /** The last failure's text (also set when a fallback succeeded). */
  error?: string;
}

export type DeliveryOutcome =
  { kind: 'sent' } | { kind: 'failed'; error: string } | { kind: 'retry'; error: string };

/** Sends one message through its route of channels, with the fallback, the logs and the monthly allowance. */
@Injectable()
export class DeliveryService {
  private readonly logger = new Logger('Notifications');

  constructor(
    private readonly repository: NotificationsRepository,
    private readonly users: UsersService,
    private readonly messConfig: MessConfigService,
    private readonly email: EmailChannel,
    private readonly whatsapp: WhatsAppChannel,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  get emailEnabled(): boolean {
    return this.email.enabled;
  }

  get whatsappEnabled(): boolean {
    return this.whatsapp.enabled;
  }

  /**
   * Delivers a stored notification (one job attempt). Resumes from the outcomes already recorded, so a retried
   * job never sends through a channel that already succeeded or failed for good.
   */
  async deliver(notificationId: string, attempt: { retriesLeft: boolean }): Promise<DeliveryOutcome> {
    const row = await this.repository.findById(notificationId);
    if (!row) return { kind: 'failed', error: 'The notification no longer exists' };
    if (row.status === 'sent') return { kind: 'sent' };
    if (row.status === 'failed') return { kind: 'failed', error: row.lastError ?? '' };

    const user = await this.users.findById(row.userId);
    if (!user) {
      await this.repository.update(row.id, { status: 'failed', lastError: 'The member no longer exists' });
      return { kind: 'failed', error: 'The member no longer exists' };
    }
    const route = row.route ?? (await this.routeFor(row));
    await this.repository.update(row.id, { route, attempts: row.attempts + 1 });

    const result = await this.runRoute(
      route,
      { ...row.outcomes },
      [...row.channels],
      { email: user.email, phone: user.phone },
      { title: row.title, content: row.content },
      {
        retriesLeft: attempt.retriesLeft,
        log: { notificationId: row.id, userId: row.userId, type: row.type },
        // Each final outcome is written at once, so a crash right after a send does not send it again.
        record: (outcomes, channels) =>
          this.repository.update(row.id, { outcomes, channels }).then(() => undefined),
      },
    );

    if (result.kind === 'sent') {
      await this.repository.update(row.id, {
        status: 'sent',
        deliveredVia: result.via,
        fallbackUsed: result.fallbackUsed,
        providerMessageId: result.messageId ?? null,
        lastError: result.error ?? null,
        sentAt: this.clock.now(),
      });
      return { kind: 'sent' };
    }
    await this.repository.update(row.id, {
      status: result.kind === 'retry' ? 'retrying' : 'failed',
      lastError: result.error ?? null,
    });
    if (result.kind === 'failed') {
      this.logger.warn(
        { notificationId: row.id, userId: row.userId, reason: result.error },
        'Notification failed',
      );
      return { kind: 'failed', error: result.error ?? '' };
    }
    return { kind: 'retry', error: result.error ?? '' };
  }

  /**
   * Tries the channels of `route` in order until one succeeds. A failed WhatsApp send before email logs a warning,
   * then that the fallback is attempted, then the fallback's success. A transient failure of the last channel ends
   * in `retry` while retries are left.
   */
  async runRoute(
    route: Channel[],
    outcomes: Partial<Record<Channel, ChannelOutcome>>,
    channels: Channel[],
    recipient: Recipient,
    message: { title: string; content: string },
    options: {
      retriesLeft: boolean;
      log: Record<string, unknown>;
      record?: (outcomes: Partial<Record<Channel, ChannelOutcome>>, channels: Channel[]) => Promise<void>;
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

      if (step.fallback) this.logger.log({ ...options.log, channel: step.channel }, 'Falling back to email');
      if (!channels.includes(step.channel)) channels.push(step.channel);
      const at = this.clock.now().toISOString();
      try {
        const { messageId } = await this.send(step.channel, recipient, message);
        outcomes[step.channel] = { ok: true, messageId, at };
      } catch (caught) {
        if (!(caught instanceof DeliveryError)) {
          this.logger.error(
            { ...options.log, reason: (caught as Error)?.message },
            'Unexpected error while sending',
          );
        }
        const failure = asDeliveryError(step.channel, caught);
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
          at,
        };
      }
      await options.record?.(outcomes, channels);
    }
  }

  /** One message through one channel; WhatsApp also takes one message from the month's allowance. */
  async send(
    channel: Channel,
    recipient: Recipient,
    message: { title: string; content: string },
  ): Promise<{ messageId: string }> {
    if (channel === 'email') {
      if (!this.email.enabled) throw new DeliveryError('email', DeliveryErrors.mailNotConfigured, true);
      if (!recipient.email) throw new DeliveryError('email', DeliveryErrors.mailRecipientRefused, true);
      const { messName } = await this.messConfig.settings();
      const rendered = renderEmail({ messName, title: message.title, content: message.content });
      return this.email.send({ to: recipient.email, fromName: messName, ...rendered });
    }
    if (!this.whatsapp.enabled)
      throw new DeliveryError('whatsapp', DeliveryErrors.messagingNotConfigured, true);
    if (!recipient.phone) throw new DeliveryError('whatsapp', DeliveryErrors.phoneUnavailable, true);
    const { monthlyLimit } = this.config.notifications.messaging;
    const month = monthOf(localParts(this.clock.now(), this.config.messTimezone).date);
    if (!(await this.repository.reserveMessage(month, monthlyLimit))) {
      throw new DeliveryError('whatsapp', DeliveryErrors.monthlyLimit(monthlyLimit), true, 'MONTHLY_LIMIT');
    }
    try {
      return await this.whatsapp.send(recipient.phone, message.title, message.content);
    } catch (error) {
      await this.repository.releaseMessage(month);
      throw error;
    }
  }

  private async routeFor(row: NotificationRow): Promise<Channel[]> {
    const preferences = effectivePreferences(await this.repository.findPreferences(row.userId));
    return planRoute({
      preference: preferences.channel,
      whatsappSupported: NOTIFICATION_TYPE_INFO[row.type].whatsapp,
      emailEnabled: this.email.enabled,
    });
  }
}

function lastFailure(
  route: Channel[],
  outcomes: Partial<Record<Channel, ChannelOutcome>>,
): string | undefined {
  const failures = route.map((channel) => outcomes[channel]).filter((o) => o && !o.ok);
  const last = failures.at(-1);
  return last && !last.ok ? last.error : undefined;
}

function asDeliveryError(channel: Channel, error: unknown): DeliveryError {
  if (error instanceof DeliveryError) return error;
  // Not a provider answer: a bug or an outage of our own; worth another try, and its message stays in the log only.
  return new DeliveryError(
    channel,
    channel === 'email' ? DeliveryErrors.mailFailed : DeliveryErrors.messagingUnreachable,
    false,
    (error as { code?: string })?.code,
  );
}
