import { Injectable, Logger } from '@nestjs/common';
import { OnDomainEvent } from '../../common/events/domain-event-bus';
import { type MessAllocatedEvent } from '../../common/events/event-map';
import { Outages } from '../../common/outages/outages';
import { Messages } from './messages';
import { NotificationsService } from './notifications.service';
import { PendingWork } from './pending-work';

/**
 * MESS_ALLOCATED: each member with a choice in a term window is told what the lottery gave them, through their
 * preferred channel, in the mess they were in at the close (the event's; `@OnDomainEvent` enters it). The dedupe
 * key names the window and the member, so a member is told once whichever replica allocated.
 */
@Injectable()
export class MessAllocatedListener {
  private readonly logger = new Logger('MessAllocated');
  private readonly pending: PendingWork;

  constructor(
    private readonly notifications: NotificationsService,
    outages: Outages,
  ) {
    this.pending = new PendingWork(this.logger, outages);
  }

  /** Resolves when every notification started so far is queued (tests wait on it). */
  idle(): Promise<void> {
    return this.pending.idle();
  }

  @OnDomainEvent('mess-window.allocated')
  onAllocated(event: MessAllocatedEvent): void {
    this.pending.track('mess allocated', async () => {
      await this.notifications.notify(
        event.results.map((result) => ({
          userId: result.userId,
          type: 'MESS_ALLOCATED' as const,
          ...Messages.messAllocated(event, result),
          dedupeKey: `MESS_ALLOCATED:${event.windowId}:${result.userId}`,
        })),
      );
    });
  }
}
