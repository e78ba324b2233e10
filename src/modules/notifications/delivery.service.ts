import { Injectable, Logger } from '@nestjs/common';
import { PrometheusMetrics } from '../../common/stats/prometheus';
import { inMess } from '../../common/tenancy/mess-scope';
import { Clock } from '../../common/time/clock';
import { AppConfig } from '../../config/app-config';
import { UsersService } from '../users';
import { EmailChannel } from './channels/email.channel';
import { type Channel, NOTIFICATION_TYPE_INFO } from './notification-types';
import { NotificationsRepository } from './notifications.repository';
import type { AcceptedOutcome, NotificationRow } from './notifications.schema';
import { effectivePreferences } from './preferences';
import { RouteRunner } from './route-runner';
import { nextStep, planRoute, retryDeadline } from './routing';

export type DeliveryOutcome =
  | { kind: 'sent' }
  | { kind: 'failed'; error: string }
  | { kind: 'retry'; error: string }
  /** Read the accepted WhatsApp message's status again at `at` (`checks` reads so far). */
  | { kind: 'check'; at: Date; checks: number };

/**
 * One run of a stored notification's delivery job (what the queue worker calls): its route, the run along it
 * (RouteRunner), and the row's status, metrics and log afterwards.
 */
@Injectable()
export class DeliveryService {
  private readonly logger = new Logger('Notifications');

  constructor(
    private readonly repository: NotificationsRepository,
    private readonly users: UsersService,
    private readonly routes: RouteRunner,
    private readonly email: EmailChannel,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly metrics: PrometheusMetrics,
  ) {}

  /**
   * Delivers a stored notification (one job run). Resumes from the outcomes already recorded, so a retried job
   * never sends through a channel that already succeeded or failed for good, and a WhatsApp message the provider
   * accepted is followed to its final status instead of being sent again. The row stays `queued` while it waits
   * for that status (a run that only reads a status is not counted as an attempt). The queue calls it in the job's
   * mess; the row is delivered in its own (its mess's name in From and the subject, its configuration).
   */
  async deliver(notificationId: string, attempt: { retriesLeft: boolean }): Promise<DeliveryOutcome> {
    const row = await this.repository.findById(notificationId);
    if (!row) return { kind: 'failed', error: 'The notification no longer exists' };
    return inMess(row.messId, () => this.deliverRow(row, attempt));
  }

  private async deliverRow(
    row: NotificationRow,
    attempt: { retriesLeft: boolean },
  ): Promise<DeliveryOutcome> {
    if (row.status === 'sent') return { kind: 'sent' };
    if (row.status === 'failed') return { kind: 'failed', error: row.lastError ?? '' };

    const user = await this.users.findById(row.userId);
    // An erased member (extension 2.3) has no address left to send to: their queued notifications end here.
    if (!user || user.status === 'erased') {
      await this.repository.update(row.id, { status: 'failed', lastError: 'The member no longer exists' });
      return { kind: 'failed', error: 'The member no longer exists' };
    }
    const route = row.route ?? (await this.routeFor(row));
    const onlyChecking = nextStep(route, row.outcomes).kind === 'confirm';
    await this.repository.update(row.id, { route, attempts: row.attempts + (onlyChecking ? 0 : 1) });

    // Transient failures are retried until NOTIFY_RETRY_DEADLINE_HOURS after queueing, whatever the count.
    const { retryDeadlineHours } = this.config.notifications.queue;
    const beforeDeadline = this.clock.now() < retryDeadline(row.createdAt, retryDeadlineHours);
    const result = await this.routes.run(
      route,
      { ...row.outcomes },
      [...row.channels],
      { email: user.email, phone: user.phone },
      { title: row.title, content: row.content, notificationId: row.id },
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

  private async routeFor(row: NotificationRow): Promise<Channel[]> {
    const preferences = effectivePreferences(await this.repository.findPreferences(row.userId));
    return planRoute({
      preference: preferences.channel,
      whatsappSupported: NOTIFICATION_TYPE_INFO[row.type].whatsapp,
      emailEnabled: this.email.enabled,
    });
  }
}
