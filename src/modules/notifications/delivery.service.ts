import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/time/clock';
import { localParts, monthOf } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import { MessConfigService } from '../mess-config';
import { maskPhone } from '../../common/phone/phone';
import { UsersService } from '../users';
import { DeliveryError, DeliveryErrors } from './channels/delivery-error';
import { EmailChannel } from './channels/email.channel';
import {
  classifyMessageFailure,
  type MessageStatus,
  messageState,
  outcomeUnknown,
  WhatsAppChannel,
} from './channels/whatsapp.channel';
import { renderEmail } from './email-template';
import { type Channel, NOTIFICATION_TYPE_INFO } from './notification-types';
import { NotificationsRepository } from './notifications.repository';
import type { AcceptedOutcome, ChannelOutcome, NotificationRow } from './notifications.schema';
import { effectivePreferences } from './preferences';
import { PrometheusMetrics } from '../../common/stats/prometheus';
import { afterFailure, nextStep, planRoute, retryDeadline } from './routing';

export interface Recipient {
  email?: string | null;
  phone?: string | null;
}

export interface RouteResult {
  /** `check`: WhatsApp accepted the message and its final status is to be read again at `checkAt`. */
  kind: 'sent' | 'failed' | 'retry' | 'check';
  channels: Channel[];
  outcomes: Partial<Record<Channel, ChannelOutcome>>;
  via?: Channel;
  fallbackUsed: boolean;
  messageId?: string;
  /** The last failure's text (also set when a fallback succeeded). */
  error?: string;
  checkAt?: Date;
}

export type DeliveryOutcome =
  | { kind: 'sent' }
  | { kind: 'failed'; error: string }
  | { kind: 'retry'; error: string }
  /** Read the accepted WhatsApp message's status again at `at` (`checks` reads so far). */
  | { kind: 'check'; at: Date; checks: number };

type Outcomes = Partial<Record<Channel, ChannelOutcome>>;

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
    private readonly metrics: PrometheusMetrics,
  ) {}

  get emailEnabled(): boolean {
    return this.email.enabled;
  }

  get whatsappEnabled(): boolean {
    return this.whatsapp.enabled;
  }

  /**
   * Delivers a stored notification (one job run). Resumes from the outcomes already recorded, so a retried job
   * never sends through a channel that already succeeded or failed for good, and a WhatsApp message the provider
   * accepted is followed to its final status instead of being sent again. The row stays `queued` while it waits
   * for that status (a run that only reads a status is not counted as an attempt).
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
    const onlyChecking = nextStep(route, row.outcomes).kind === 'confirm';
    await this.repository.update(row.id, { route, attempts: row.attempts + (onlyChecking ? 0 : 1) });

    // Transient failures are retried until NOTIFY_RETRY_DEADLINE_HOURS after queueing, whatever the count.
    const { retryDeadlineHours } = this.config.notifications.queue;
    const beforeDeadline = this.clock.now() < retryDeadline(row.createdAt, retryDeadlineHours);
    const result = await this.runRoute(
      route,
      { ...row.outcomes },
      [...row.channels],
      { email: user.email, phone: user.phone },
      { title: row.title, content: row.content },
      {
        retriesLeft: attempt.retriesLeft && beforeDeadline,
        canWait: true,
        log: { notificationId: row.id, userId: row.userId, type: row.type },
        // Each outcome is written at once, so a crash right after a send does not send it again.
        record: (outcomes, channels) =>
          this.repository.update(row.id, { outcomes, channels }).then(() => undefined),
      },
    );

    // The channel that answered last: the one that sent, or the last one tried.
    const channel = result.via ?? result.channels[result.channels.length - 1] ?? 'none';
    this.metrics.deliveries.inc({ type: row.type, channel, outcome: result.kind });
    if (result.kind === 'sent' && result.fallbackUsed) this.metrics.fallbacks.inc({ type: row.type });

    if (result.kind === 'check') {
      const accepted = result.outcomes.whatsapp as AcceptedOutcome;
      await this.repository.update(row.id, { providerMessageId: accepted.messageId });
      return { kind: 'check', at: result.checkAt!, checks: accepted.checks };
    }
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
   * in `retry` while retries are left. A WhatsApp message the provider accepted counts only once its status says it
   * went out: its status is read at once, and, while it is still on its way, again at `checkAt` (`check`) until
   * MSG_STATUS_DEADLINE_SECONDS after the acceptance. Without `canWait` (the test send) an accepted message
   * whose first status read is not final counts as sent.
   */
  async runRoute(
    route: Channel[],
    outcomes: Outcomes,
    channels: Channel[],
    recipient: Recipient,
    message: { title: string; content: string },
    options: {
      retriesLeft: boolean;
      canWait?: boolean;
      log: Record<string, unknown>;
      record?: (outcomes: Outcomes, channels: Channel[]) => Promise<void>;
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
        const confirmed = await this.confirm(step.outcome, options.canWait ?? false);
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
        if (!channels.includes(step.channel)) channels.push(step.channel);
        const at = this.clock.now().toISOString();
        const inFlightSince = step.kind === 'attempt' ? step.inFlightSince : undefined;
        if (step.channel === 'whatsapp' && options.record && this.whatsapp.enabled && recipient.phone) {
          // In flight from here on: should the answer never come, a retry looks the message up before sending.
          outcomes.whatsapp = { ok: 'sending', at: inFlightSince ?? at };
          await options.record(outcomes, channels);
        }
        try {
          const sent =
            (inFlightSince && (await this.findInFlight(recipient, message, inFlightSince, options.log))) ||
            (await this.send(step.channel, recipient, message, { reservedSince: inFlightSince }));
          if (sent.state === 'failed') {
            failure = sent.failure;
            delete outcomes[step.channel];
          } else {
            outcomes[step.channel] =
              sent.state === 'pending'
                ? { ok: 'accepted', messageId: sent.messageId, at: inFlightSince ?? at, checks: 0 }
                : { ok: true, messageId: sent.messageId, at };
          }
        } catch (caught) {
          if (!(caught instanceof DeliveryError)) {
            this.logger.error(
              { ...options.log, reason: (caught as Error)?.message },
              'Unexpected error while sending',
            );
          }
          failure = asDeliveryError(step.channel, caught);
          // Still unknown (a timeout, or the look-up failed): stays in flight for the retry to look up.
          if (
            step.channel === 'whatsapp' &&
            (outcomeUnknown(caught) || (inFlightSince && !failure.permanent))
          ) {
            outcomes.whatsapp = { ok: 'sending', at: inFlightSince ?? at };
          } else delete outcomes[step.channel];
        }
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

  /**
   * One message through one channel; WhatsApp also takes one message from the month's allowance. A WhatsApp
   * message comes back `pending` when the provider accepted it and its status is not final yet, `failed` when
   * the provider already gave up on it.
   */
  async send(
    channel: Channel,
    recipient: Recipient,
    message: { title: string; content: string },
    /** An earlier send of this message, started then, already took one from the allowance and never gave it back. */
    options: { reservedSince?: string } = {},
  ): Promise<
    | { state: 'delivered' | 'pending'; messageId: string }
    | { state: 'failed'; messageId: string; failure: DeliveryError }
  > {
    if (channel === 'email') {
      if (!this.email.enabled) throw new DeliveryError('email', DeliveryErrors.mailNotConfigured, true);
      if (!recipient.email) throw new DeliveryError('email', DeliveryErrors.mailRecipientRefused, true);
      const { messName } = await this.messConfig.settings();
      const rendered = renderEmail({ messName, title: message.title, content: message.content });
      const { messageId } = await this.email.send({ to: recipient.email, fromName: messName, ...rendered });
      return { state: 'delivered', messageId };
    }
    if (!this.whatsapp.enabled)
      throw new DeliveryError('whatsapp', DeliveryErrors.messagingNotConfigured, true);
    if (!recipient.phone) throw new DeliveryError('whatsapp', DeliveryErrors.phoneUnavailable, true);
    const { monthlyLimit } = this.config.notifications.messaging;
    const month = this.monthOf(options.reservedSince ? new Date(options.reservedSince) : this.clock.now());
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
    return this.afterStatus(sent.messageId, sent.status, undefined, month);
  }

  /**
   * After a send whose answer never came (started at `since`): the provider's record of a message with this text to
   * the member since then, adopted (its id, then its status followed) instead of sending again. Undefined when the
   * provider has none: the earlier send was not taken. Looks back a minute before `since` for clock skew.
   */
  private async findInFlight(
    recipient: Recipient,
    message: { title: string; content: string },
    since: string,
    log: Record<string, unknown>,
  ): Promise<Awaited<ReturnType<DeliveryService['afterStatus']>> | undefined> {
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

  /** Reads an accepted WhatsApp message's status: final now, or when to read it again. */
  private async confirm(
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

  private async afterStatus(
    messageId: string,
    status: MessageStatus,
    errorCode: number | undefined,
    month: string,
  ): Promise<
    | { state: 'delivered' | 'pending'; messageId: string }
    | { state: 'failed'; messageId: string; failure: DeliveryError }
  > {
    const state = messageState(status);
    if (state !== 'failed') return { state, messageId };
    // The provider gave up on the message: it does not count against the allowance.
    await this.repository.releaseMessage(month);
    return { state, messageId, failure: classifyMessageFailure(errorCode) };
  }

  private monthOf(instant: Date): string {
    return monthOf(localParts(instant, this.config.messTimezone).date);
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

function lastFailure(route: Channel[], outcomes: Outcomes): string | undefined {
  const failures = route.map((channel) => outcomes[channel]).filter((o) => o?.ok === false);
  const last = failures.at(-1);
  return last?.ok === false ? last.error : undefined;
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
