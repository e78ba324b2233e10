import { normalizeEmail } from '../../common/identity/email';
import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectThrottlerStorage, ThrottlerStorage } from '@nestjs/throttler';
import { createHash, randomBytes } from 'node:crypto';
import type { CurrentMember } from '../../common/auth/auth.decorators';
import { mayActIn } from '../../common/auth/permissions';
import { badRequest, notFound } from '../../common/errors/api-error';
import { DomainEventBus } from '../../common/events/domain-event-bus';
import { currentMessId } from '../../common/tenancy/mess-scope';
import { Clock } from '../../common/time/clock';
import { AppConfig } from '../../config/app-config';
import { actInMessWithin, type DbOrTx } from '../../database/database';
import { AuditTrail } from '../audit-trail';
import { CredentialsService, type UserRow, UsersService } from '../users';
import { PasswordResetsRepository } from './password-resets.repository';

/** The one answer to every reset with a token that is not (or no longer) good. */
export const RESET_TOKEN_INVALID = 'This password-reset link is invalid, expired or already used';
/** Reset mails one email address is sent per hour at most; past it, forgot answers alike and mails nothing. */
export const RESET_MAILS_PER_HOUR = 5;
const HOUR_MS = 60 * 60_000;

const hashOf = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/**
 * Forgotten passwords: a one-time token (32 random bytes, base64url) mailed in a link, stored only as its SHA-256,
 * valid PASSWORD_RESET_TTL_MINUTES and once; using it sets the password and ends every earlier token of the member
 * (the token version, as a password change does).
 */
@Injectable()
export class PasswordResetService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('PasswordReset');
  private purgeTimer?: NodeJS.Timeout;

  constructor(
    private readonly users: UsersService,
    private readonly credentials: CredentialsService,
    private readonly repository: PasswordResetsRepository,
    private readonly events: DomainEventBus,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly audit: AuditTrail,
    @InjectThrottlerStorage() private readonly throttle: ThrottlerStorage,
  ) {}

  onModuleInit(): void {
    // Used or expired tokens are kept a day (for the record), then dropped, hourly.
    this.purgeTimer = setInterval(() => {
      this.repository
        .purge(new Date(this.clock.now().getTime() - 24 * HOUR_MS))
        .catch((error: unknown) => this.logger.warn({ err: error }, 'Purge failed'));
    }, HOUR_MS);
    this.purgeTimer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.purgeTimer);
  }

  /**
   * Mails a link when the email names a member who may log in, within the per-email limit; whatever the case it
   * resolves the same way (the route answers alike), and the same work is done up to the insert.
   */
  async forgot(email: string): Promise<void> {
    const user = await this.users.findByEmail(email);
    const { totalHits } = await this.throttle.increment(
      `password-reset:email:${normalizeEmail(email)}`,
      HOUR_MS,
      Number.MAX_SAFE_INTEGER,
      0,
      'password-reset',
    );
    const token = randomBytes(32).toString('base64url');
    const tokenHash = hashOf(token);
    if (!user || user.status === 'rejected' || user.status === 'erased') return;
    if (totalHits > RESET_MAILS_PER_HOUR) {
      this.logger.warn(
        { userId: user.id },
        'Password-reset mails for this member over the hourly limit; none sent',
      );
      return;
    }
    await this.issue(user, token, tokenHash);
  }

  /** An admin mails a member the link (404 for a member of a mess the admin may not act in). */
  async sendFor(caller: CurrentMember, userId: string): Promise<void> {
    const user = await this.users.findById(userId);
    // An erased member (extension 2.3) has no address and no account to return to.
    if (
      !user ||
      user.status === 'erased' ||
      !(await mayActIn(caller, user.messId, { ownRecordsOnly: false }))
    )
      throw notFound('User not found');
    const token = randomBytes(32).toString('base64url');
    await this.issue(user, token, hashOf(token), async (tx) => {
      // In the member's mess's trail, as a move between messes is.
      await actInMessWithin(tx, user.messId);
      await this.audit.record(tx, {
        actorId: caller.id,
        action: 'password-reset-sent',
        entity: 'user',
        entityId: user.id,
      });
    });
    this.logger.log(
      { by: caller.id, userId: user.id, mess: currentMessId() },
      'Password-reset link sent by an admin',
    );
  }

  /** Sets the new password with a good token (used here, once); any other token is 400 with one message. */
  async reset(token: string, newPassword: string): Promise<UserRow> {
    const now = this.clock.now();
    const passwordHash = await this.credentials.hashPassword(newPassword);
    // One transaction, this module's: the token used once, the member's other reset tokens ended, the trail's row,
    // then the password set and every earlier token ended by the users module (its method taking the transaction).
    const user = await this.repository.transaction(async (tx) => {
      const used = await this.repository.consume(hashOf(token), now, tx);
      if (!used) return undefined;
      await this.repository.endOthers(used.userId, now, tx);
      // The member's mess's trail says their password was reset (by them, with a mailed link).
      await actInMessWithin(tx, used.messId);
      await this.audit.record(tx, {
        actorId: used.userId,
        action: 'password-reset',
        entity: 'user',
        entityId: used.userId,
      });
      return this.credentials.setPasswordWithin(tx, used.userId, passwordHash);
    });
    if (!user) throw badRequest(RESET_TOKEN_INVALID, [{ field: 'token', message: RESET_TOKEN_INVALID }]);
    this.credentials.announcePasswordSet(user);
    this.logger.log({ userId: user.id }, 'Password reset; earlier tokens revoked');
    return user;
  }

  /** `audited`: the admin's send is audited in the insert's transaction. */
  private async issue(
    user: UserRow,
    token: string,
    tokenHash: string,
    audited?: (tx: DbOrTx) => Promise<void>,
  ): Promise<void> {
    const ttlMinutes = this.config.passwordResetTtlMinutes;
    const expiresAt = new Date(this.clock.now().getTime() + ttlMinutes * 60_000);
    const link = `${this.config.publicUrl}/reset-password?token=${token}`;
    // The mail is promised with the token (the outbox), in the member's mess.
    await this.repository.transaction(async (tx) => {
      await this.repository.insert(tokenHash, user.id, expiresAt, tx);
      await audited?.(tx);
      await this.events.publishWithin(tx, 'auth.password-reset-requested', {
        userId: user.id,
        messId: user.messId,
        tokenHash,
        link,
        ttlMinutes,
      });
    });
  }
}
