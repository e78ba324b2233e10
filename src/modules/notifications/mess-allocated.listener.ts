import { Injectable } from '@nestjs/common';
import { OnDomainEvent } from '../../common/events/domain-event-bus';
import { type MessAllocatedEvent } from '../../common/events/event-map';
import { Messages } from './messages';
import { NotificationsService } from './notifications.service';
import { OutboxRelay } from '../outbox';

/**
 * MESS_ALLOCATED: each member with a choice in a term window is told what the lottery gave them, through their
 * preferred channel, in the mess they were in at the close (the event's; `@OnDomainEvent` enters it). The dedupe
 * key names the window and the member, so a member is told once whichever replica allocated.
 *
 * A durable event: it comes from the outbox (written with its change) and may come more than once (a relay that
 * died before marking it done); the dedupe key makes a second run queue nothing. A failure rejects, and the relay
 * hands the event on again later.
 */
@Injectable()
export class MessAllocatedListener {
  constructor(
    private readonly notifications: NotificationsService,
    private readonly relay: OutboxRelay,
  ) {}

  /** Resolves when the outbox relay has handed on every event it has been woken for (tests wait on it). */
  idle(): Promise<void> {
    return this.relay.idle();
  }

  @OnDomainEvent('mess-window.allocated')
  async onAllocated(event: MessAllocatedEvent): Promise<void> {
    await this.notifications.notify(
      event.results.map((result) => ({
        userId: result.userId,
        type: 'MESS_ALLOCATED' as const,
        ...Messages.messAllocated(event, result),
        dedupeKey: `MESS_ALLOCATED:${event.windowId}:${result.userId}`,
      })),
    );
  }
}
