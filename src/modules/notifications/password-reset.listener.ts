import { Injectable, Logger } from '@nestjs/common';
import { Outages } from '../../common/outages/outages';
import { OnDomainEvent } from '../../common/events/domain-event-bus';
import { type PasswordResetEvent } from '../../common/events/event-map';
import { inMess } from '../../common/tenancy/mess-scope';
import { Messages } from './messages';
import { NotificationsService } from './notifications.service';
import { PendingWork } from './pending-work';

/**
 * PASSWORD_RESET: the link to set a new password, mailed through the durable queue in the member's own mess (the
 * public forgot route acts in no mess of its own). No preference switch turns it off; email only. The link is
 * never logged; the dedupe key is the token's hash, so one link is queued once.
 */
@Injectable()
export class PasswordResetListener {
  private readonly logger = new Logger('PasswordResetMail');
  private readonly pending: PendingWork;

  constructor(
    private readonly notifications: NotificationsService,
    outages: Outages,
  ) {
    this.pending = new PendingWork(this.logger, outages);
  }

  /** Resolves when every mail started so far is queued (tests wait on it). */
  idle(): Promise<void> {
    return this.pending.idle();
  }

  @OnDomainEvent('auth.password-reset-requested')
  onRequested(event: PasswordResetEvent): void {
    this.pending.track('password-reset mail', () =>
      inMess(event.messId, () =>
        this.notifications.notify([
          {
            userId: event.userId,
            type: 'PASSWORD_RESET',
            ...Messages.passwordReset(event.link, event.ttlMinutes),
            dedupeKey: `PASSWORD_RESET:${event.tokenHash}`,
          },
        ]),
      ),
    );
  }
}
