import { Injectable } from '@nestjs/common';
import { OnDomainEvent } from '../../common/events/domain-event-bus';
import { type LeaveEvent } from '../../common/events/event-map';
import { Messages } from './messages';
import { NotificationsService } from './notifications.service';
import { OutboxRelay } from '../outbox';

/**
 * LEAVE_DECIDED to the member when a manager or an admin approves or rejects their leave, or records one for them
 * (approved at once), through the member's preferred channel. A leave the policy approved as the member asked is
 * answered by the request itself; a cancellation is not a decision.
 *
 * A durable event: it comes from the outbox (written with its change) and may come more than once (a relay that
 * died before marking it done); the dedupe key makes a second run queue nothing. A failure rejects, and the relay
 * hands the event on again later.
 */
@Injectable()
export class LeaveDecidedListener {
  constructor(
    private readonly notifications: NotificationsService,
    private readonly relay: OutboxRelay,
  ) {}

  /** Resolves when the outbox relay has handed on every event it has been woken for (tests wait on it). */
  idle(): Promise<void> {
    return this.relay.idle();
  }

  @OnDomainEvent('leave.decided')
  async onLeaveDecided(event: LeaveEvent): Promise<void> {
    if (event.status !== 'approved' && event.status !== 'rejected') return;
    if (!event.decidedBy || event.decidedBy === event.userId) return;
    const status = event.status;
    await this.notifications.notify([
      {
        userId: event.userId,
        type: 'LEAVE_DECIDED',
        ...Messages.leaveDecided({ ...event, status }),
        dedupeKey: `LEAVE_DECIDED:${event.leaveId}:${status}`,
      },
    ]);
  }
}
