import { Injectable } from '@nestjs/common';
import { OnDomainEvent } from '../../common/events/domain-event-bus';
import { type PasswordResetEvent } from '../../common/events/event-map';
import { inMess } from '../../common/tenancy/mess-scope';
import { Messages } from './messages';
import { NotificationsService } from './notifications.service';
import { OutboxRelay } from '../outbox';

/**
 * PASSWORD_RESET: the link to set a new password, mailed through the durable queue in the member's own mess (the
 * public forgot route acts in no mess of its own). No preference switch turns it off; email only. The link is
 * never logged; the dedupe key is the token's hash, so one link is queued once.
 *
 * A durable event: it comes from the outbox (written with its change) and may come more than once (a relay that
 * died before marking it done); the dedupe key makes a second run queue nothing. A failure rejects, and the relay
 * hands the event on again later.
 */
@Injectable()
export class PasswordResetListener {
  constructor(
    private readonly notifications: NotificationsService,
    private readonly relay: OutboxRelay,
  ) {}

  /** Resolves when the outbox relay has handed on every event it has been woken for (tests wait on it). */
  idle(): Promise<void> {
    return this.relay.idle();
  }

  @OnDomainEvent('auth.password-reset-requested')
  async onRequested(event: PasswordResetEvent): Promise<void> {
    await inMess(event.messId, () =>
      this.notifications.notify([
        {
          userId: event.userId,
          type: 'PASSWORD_RESET',
          ...Messages.passwordReset(event.link, event.ttlMinutes),
          dedupeKey: `PASSWORD_RESET:${event.tokenHash}`,
        },
      ]),
    );
  }
}
