import { Injectable, Logger } from '@nestjs/common';
import { Outages } from '../../common/outages/outages';
import { OnDomainEvent } from '../../common/events/domain-event-bus';
import { type LeaveEvent } from '../../common/events/event-map';
import { Messages } from './messages';
import { NotificationsService } from './notifications.service';
import { PendingWork } from './pending-work';

/**
 * LEAVE_DECIDED to the member when a manager or an admin approves or rejects their leave, or records one for them
 * (approved at once), through the member's preferred channel. A leave the policy approved as the member asked is
 * answered by the request itself; a cancellation is not a decision.
 */
@Injectable()
export class LeaveDecidedListener {
  private readonly logger = new Logger('LeaveDecided');
  private readonly pending: PendingWork;

  constructor(
    private readonly notifications: NotificationsService,
    outages: Outages,
  ) {
    this.pending = new PendingWork(this.logger, outages);
  }

  idle(): Promise<void> {
    return this.pending.idle();
  }

  @OnDomainEvent('leave.decided')
  onLeaveDecided(event: LeaveEvent): void {
    if (event.status !== 'approved' && event.status !== 'rejected') return;
    if (!event.decidedBy || event.decidedBy === event.userId) return;
    const status = event.status;
    this.pending.track('leave decided', async () => {
      await this.notifications.notify([
        {
          userId: event.userId,
          type: 'LEAVE_DECIDED',
          ...Messages.leaveDecided({ ...event, status }),
          dedupeKey: `LEAVE_DECIDED:${event.leaveId}:${status}`,
        },
      ]);
    });
  }
}
