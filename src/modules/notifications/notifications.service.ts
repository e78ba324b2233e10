import { Injectable, Logger } from '@nestjs/common';
import { InjectThrottlerStorage, ThrottlerStorage } from '@nestjs/throttler';
import type { CurrentMember } from '../../common/auth/auth.decorators';
import { badRequest, notFound, unavailable } from '../../common/errors/api-error';
import { RateLimitedError } from '../../common/http/rate-limit';
import { Clock } from '../../common/time/clock';
import { localParts } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import type { DbOrTx } from '../../database/database';
import { MessConfigService } from '../mess-config';
import type { Role } from '../../common/auth/roles';
import { UsersService } from '../users';
import { DeliveryErrors } from './channels/delivery-error';
import { EmailChannel } from './channels/email.channel';
import { WhatsAppChannel } from './channels/whatsapp.channel';
import { maskEmail, maskIdentifier } from './masking';
import { NotificationQueue } from './notification-queue';
import {
  type Channel,
  type ChannelPreference,
  NOTIFICATION_TYPE_INFO,
  type NotificationType,
  type PreferenceSwitch,
  type PreferenceSwitches,
} from './notification-types';
import { NO_CHANNEL_CONFIGURED } from './notifications.errors';
import { NotificationsRepository } from './notifications.repository';
import type { NotificationRow } from './notifications.schema';
import { effectivePreferences } from './preferences';
import { RouteRunner } from './route-runner';
import { planRoute } from './routing';

/** Notifications written (with their delivery jobs) per transaction. */
const NOTIFY_BATCH = 200;

export interface NotificationRequest {
  userId: string;
  type: NotificationType;
  title: string;
  content: string;
  /** Names the (type, period, user): a second request with the same key is ignored, whichever replica sends it. */
  dedupeKey?: string;
}

export interface MemberPreferences {
  channel: ChannelPreference;
  preferences: PreferenceSwitches;
  phoneConfigured: boolean;
}

export interface ConfigCheck {
  mail: { configured: boolean; email: string };
  messaging: { configured: boolean; accountSid: string; phoneNumber: string; testPhoneConfigured: boolean };
  whatsappSupported: boolean;
}

export interface TestSendResult {
  success: boolean;
  message: string;
  details: Record<Channel, string>;
  fallbackUsed: boolean;
}

/** Queues notifications for members, and owns their preferences and history. */
@Injectable()
export class NotificationsService {
  private readonly logger = new Logger('Notifications');

  constructor(
    private readonly repository: NotificationsRepository,
    private readonly queue: NotificationQueue,
    private readonly routes: RouteRunner,
    private readonly email: EmailChannel,
    private readonly whatsapp: WhatsAppChannel,
    private readonly users: UsersService,
    private readonly messConfig: MessConfigService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    @InjectThrottlerStorage() private readonly throttlerStorage: ThrottlerStorage,
  ) {}

  /**
   * Records and queues each request whose member has the type's switch on; a known dedupe key is skipped. Rows
   * and jobs are written in one transaction per NOTIFY_BATCH rows, or, `atomic`, all of them in one: a schedule's
   * decision (its reminders) is then stored whole or not at all, so a process killed in the middle never leaves
   * part of it to a later tick that may come after its window. Returns the notifications created.
   */
  async notify(
    requests: NotificationRequest[],
    options: { atomic?: boolean } = {},
  ): Promise<NotificationRow[]> {
    if (!requests.length) return [];
    const stored = await this.repository.findPreferencesFor([...new Set(requests.map((r) => r.userId))]);
    const wanted = requests.filter((request) => {
      const preferences = effectivePreferences(stored.get(request.userId));
      const key = NOTIFICATION_TYPE_INFO[request.type].switch;
      return key === null || preferences.switches[key];
    });
    if (!wanted.length) return [];
    // In transactions of NOTIFY_BATCH rows, the event loop let through between them: a fan-out to every member
    // does not hold the embedded engine's single connection (or a pooled one) for the whole batch. Rows with a
    // dedupe key make a retry after a failure between batches create only what is missing.
    const writeBatch = async (batch: NotificationRequest[], tx: DbOrTx) => {
      const inserted = await this.repository.insertNew(
        batch.map((r) => ({
          userId: r.userId,
          type: r.type,
          title: r.title,
          content: r.content,
          dedupeKey: r.dedupeKey ?? null,
        })),
        tx,
      );
      await this.queue.enqueue(inserted, tx);
      return inserted;
    };
    const batches: NotificationRequest[][] = [];
    for (let start = 0; start < wanted.length; start += NOTIFY_BATCH)
      batches.push(wanted.slice(start, start + NOTIFY_BATCH));
    const created: NotificationRow[] = [];
    if (options.atomic) {
      created.push(
        ...(await this.repository.transaction(async (tx) => {
          const rows: NotificationRow[] = [];
          for (const batch of batches) rows.push(...(await writeBatch(batch, tx)));
          return rows;
        })),
      );
    } else {
      for (const [i, batch] of batches.entries()) {
        if (i) await new Promise((resolve) => setImmediate(resolve));
        created.push(...(await this.repository.transaction((tx) => writeBatch(batch, tx))));
      }
    }
    if (created.length) {
      this.logger.log({ type: wanted[0].type, count: created.length }, 'Notifications queued');
    }
    return created;
  }

  /** The dedupe key and content of the newest notification whose dedupe key starts with `keyPrefix`. */
  lastNotified(keyPrefix: string): Promise<{ dedupeKey: string; content: string } | undefined> {
    return this.repository.lastByKeyPrefix(keyPrefix);
  }

  /**
   * Gives the notifications of the mess the code runs in whose delivery job was lost a new one, or fails them past
   * the retry deadline.
   */
  reconcileDelivery(now: Date) {
    return this.queue.reconcile(now);
  }

  /** Approved members who may receive notifications; all of them, or those with one of `roles`. */
  members(roles?: Role[]) {
    return this.users.findApprovedByRoles(roles);
  }

  /**
   * The approved members (of these roles) who eat at the mess: who is told about meals and marks. A member with
   * `dines: false` may not mark, so a reminder, a confirmation or a discrepancy alert would ask what they cannot do.
   */
  async diners(roles?: Role[]) {
    return (await this.users.findApprovedByRoles(roles)).filter((member) => member.dines);
  }

  // ---- preferences ----

  async preferences(userId: string): Promise<MemberPreferences> {
    const user = await this.users.findById(userId);
    if (!user) throw notFound('User not found');
    const effective = effectivePreferences(await this.repository.findPreferences(userId));
    return {
      channel: effective.channel,
      preferences: effective.switches,
      phoneConfigured: Boolean(user.phone),
    };
  }

  async setChannel(caller: CurrentMember, channel: ChannelPreference): Promise<MemberPreferences> {
    const user = await this.users.findById(caller.id);
    if (!user) throw notFound('User not found');
    if (channel !== 'email' && !user.phone) {
      throw badRequest('Validation failed', [
        {
          field: 'preferredNotificationChannel',
          message: `${channel} needs a phone number: ${DeliveryErrors.phoneUnavailable.toLowerCase()}; add one with POST /users/profile`,
        },
      ]);
    }
    await this.repository.saveChannel(caller.id, channel);
    return this.preferences(caller.id);
  }

  async setSwitches(
    caller: CurrentMember,
    switches: Partial<Record<PreferenceSwitch, boolean>>,
  ): Promise<MemberPreferences> {
    const changes = Object.fromEntries(Object.entries(switches).filter(([, value]) => value !== undefined));
    if (!Object.keys(changes).length) {
      throw badRequest('Validation failed', [
        { field: 'body', message: 'send at least one preference switch, e.g. {"mealReminders": false}' },
      ]);
    }
    await this.repository.saveSwitches(caller.id, changes);
    return this.preferences(caller.id);
  }

  // ---- history ----

  history(userId: string, page: number, limit: number) {
    return this.repository.listForUser(userId, limit, (page - 1) * limit);
  }

  // ---- provider settings ----

  /** What is configured, masked: never a password, an auth token or a full account SID. */
  configCheck(): ConfigCheck {
    const { mail, messaging } = this.config.notifications;
    return {
      mail: { configured: this.email.enabled, email: maskEmail(mail.email) },
      messaging: {
        configured: this.whatsapp.enabled,
        accountSid: maskIdentifier(messaging.accountSid),
        phoneNumber: messaging.phoneNumber ?? '',
        testPhoneConfigured: Boolean(messaging.testPhone),
      },
      whatsappSupported: this.whatsapp.enabled,
    };
  }

  /**
   * Sends a test message now, through the same routing and fallback as real notifications: email to the configured
   * sender address, WhatsApp to MSG_TEST_PHONE or else the caller's phone. Limited per member per hour.
   */
  async sendTest(caller: CurrentMember, channel: ChannelPreference): Promise<TestSendResult> {
    const email = this.email.enabled && channel !== 'whatsapp';
    const whatsapp = this.whatsapp.enabled && channel !== 'email';
    if (!email && !whatsapp) throw unavailable(NO_CHANNEL_CONFIGURED[channel]);
    await this.limitTests(caller.id);
    const user = await this.users.findById(caller.id);
    if (!user) throw notFound('User not found');
    const { messName } = await this.messConfig.settings();
    const now = localParts(this.clock.now(), this.config.messTimezone);
    const route = planRoute({
      preference: channel,
      whatsappSupported: true,
      emailEnabled: this.email.enabled,
    });
    const result = await this.routes.run(
      route,
      {},
      [],
      { email: this.email.senderAddress, phone: this.config.notifications.messaging.testPhone ?? user.phone },
      {
        title: 'Test notification',
        content: `This is a test notification from ${messName}, requested by ${user.fullName} on ${now.date} at ${now.time}. If you can read it, the channel works.`,
      },
      { retriesLeft: false, log: { test: true, userId: caller.id } },
    );
    const details = {} as Record<Channel, string>;
    for (const name of ['email', 'whatsapp'] as const) {
      const outcome = result.outcomes[name];
      if (outcome) details[name] = outcome.ok ? 'sent' : outcome.error;
      else if (name === 'email' && channel === 'both' && !this.email.enabled) {
        details[name] = DeliveryErrors.mailNotConfigured;
      } else details[name] = 'skipped';
    }
    const sent = result.kind === 'sent';
    const message = !sent
      ? 'The test notification could not be sent'
      : result.fallbackUsed
        ? 'Test notification sent by email after WhatsApp failed'
        : `Test notification sent by ${result.via === 'whatsapp' ? 'WhatsApp' : 'email'}`;
    return { success: sent, message, details, fallbackUsed: result.fallbackUsed };
  }

  private async limitTests(userId: string): Promise<void> {
    const limit = this.config.notifications.testPerHour;
    const record = await this.throttlerStorage.increment(
      `notifications-test:${userId}`,
      3_600_000,
      limit,
      0,
      'notifications-test',
    );
    if (record.totalHits > limit) throw new RateLimitedError(Math.max(1, record.timeToExpire));
  }
}
