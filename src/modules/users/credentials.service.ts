import { normalizeEmail } from '../../common/identity/email';
import { Injectable } from '@nestjs/common';
import * as bcrypt from 'bcrypt';
import { WorkLimiter } from '../../common/concurrency/work-limiter';
import { conflict, notFound } from '../../common/errors/api-error';
import { isUniqueViolation } from '../../common/errors/database-errors';
import { DomainEventBus } from '../../common/events/domain-event-bus';
import { AppConfig } from '../../config/app-config';
import { actInMessWithin, type DbOrTx } from '../../database/database';
import { AuditTrail } from '../audit-trail';
import { memberUpdated, membershipOf } from './member-changes';
import { UsersRepository } from './users.repository';
import type { UserRow } from './users.schema';

export interface NewMember {
  email: string;
  password: string;
  fullName: string;
  collegeId: string;
  room: string;
  phone: string;
  /** The mess joined; left out: the first mess. */
  messId?: string;
  /** The privacy notice's version accepted at registration (extension 2.3); none when no notice is in force. */
  noticeVersion?: string;
}

export interface IdpIdentity {
  idpId: string;
  email: string;
  fullName: string;
}

/** How members come to have an account and prove who they are: registration, the IdP link, passwords, the admin. */
@Injectable()
export class CredentialsService {
  /**
   * Every bcrypt hash and comparison (~60 ms of CPU each at cost 10) goes through here: at most
   * BCRYPT_CONCURRENCY at once (default: the cores but one), so a login storm leaves a core to every other
   * request; one that waits longer than BCRYPT_QUEUE_TIMEOUT_MS is answered 503 with Retry-After.
   */
  private readonly hashing: WorkLimiter;

  constructor(
    private readonly repository: UsersRepository,
    private readonly config: AppConfig,
    private readonly events: DomainEventBus,
    private readonly audit: AuditTrail,
  ) {
    this.hashing = new WorkLimiter(config.bcryptConcurrency, config.bcryptQueueTimeoutMs);
  }

  /** Registration: a pending student. A duplicate email (also under a race) is 409. */
  async register(member: NewMember): Promise<UserRow> {
    if (await this.repository.findByEmail(member.email)) throw conflict('Email already registered');
    return this.repository.insert({
      email: member.email,
      passwordHash: await this.hash(member.password),
      fullName: member.fullName,
      collegeId: member.collegeId,
      room: member.room,
      phone: member.phone,
      role: 'student',
      status: 'pending',
      ...(member.messId ? { messId: member.messId } : {}),
      ...(member.noticeVersion ? { noticeVersion: member.noticeVersion, noticeAcceptedAt: new Date() } : {}),
    });
  }

  createFromIdp(identity: IdpIdentity): Promise<UserRow> {
    return this.repository.insert({
      email: identity.email,
      fullName: identity.fullName,
      idpId: identity.idpId,
      role: 'student',
      status: 'pending',
    });
  }

  async linkIdp(userId: string, idpId: string): Promise<UserRow> {
    const row = memberUpdated(this.events, await this.repository.update(userId, { idpId }));
    if (!row) throw notFound('User not found');
    return row;
  }

  async passwordMatches(user: UserRow, password: string): Promise<boolean> {
    if (!user.passwordHash) return false;
    const hash = user.passwordHash;
    return this.hashing.run(() => bcrypt.compare(password, hash));
  }

  /** Sets a new password and ends every token issued before it. */
  async changePassword(user: UserRow, newPassword: string): Promise<UserRow> {
    const row = memberUpdated(
      this.events,
      await this.repository.updateAndRevokeTokens(user.id, { passwordHash: await this.hash(newPassword) }),
    );
    if (!row) throw notFound('User not found');
    return row;
  }

  /** A password as it is kept (bcrypt), hashed before the transaction that sets it (`setPasswordWithin`). */
  hashPassword(password: string): Promise<string> {
    return this.hash(password);
  }

  /**
   * In the caller's transaction (a forgotten password's reset, which auth opens once its token is used): the
   * member's password set (`passwordHash` from `hashPassword`) and every earlier token ended. `announcePasswordSet`
   * after the commit.
   */
  setPasswordWithin(tx: DbOrTx, userId: string, passwordHash: string): Promise<UserRow | undefined> {
    return this.repository.updateAndRevokeTokens(userId, { passwordHash }, tx);
  }

  /** After the reset committed: the member's tokens read again on every replica (`member.updated`). */
  announcePasswordSet(row: UserRow): UserRow {
    return memberUpdated(this.events, row);
  }

  /**
   * Makes sure an approved admin with this email exists: creates one, or promotes and re-passwords the existing
   * account. Used by the start-up bootstrap and `npm run admin:create`.
   */
  async ensureAdmin(
    email: string,
    password: string,
    fullName = 'Mess Admin',
  ): Promise<{ user: UserRow; created: boolean }> {
    const normalized = normalizeEmail(email);
    const existing = await this.repository.findByEmail(normalized);
    const passwordHash = await this.hash(password);
    // No actor: the start-up bootstrap or an operator's command line, never a request.
    // At start-up there is no mess: the audit row goes to the admin's own.
    const audit = async (tx: DbOrTx, user: UserRow, before?: UserRow) => {
      await actInMessWithin(tx, user.messId);
      await this.audit.record(tx, {
        actorId: null,
        action: 'admin-ensured',
        entity: 'user',
        entityId: user.id,
        before: before && membershipOf(before),
        after: membershipOf(user),
      });
    };
    if (existing) {
      const user = await this.repository.transaction(async (tx) => {
        const row = await this.repository.updateAndRevokeTokens(
          existing.id,
          { role: 'admin', status: 'approved', passwordHash },
          tx,
        );
        await audit(tx, row!, existing);
        return row!;
      });
      return { user: memberUpdated(this.events, user), created: false };
    }
    try {
      const user = await this.repository.transaction(async (tx) => {
        const row = await this.repository.insert(
          // An admin the service creates runs the mess; it does not eat there until an admin says so.
          { email: normalized, passwordHash, fullName, role: 'admin', status: 'approved', dines: false },
          tx,
        );
        await audit(tx, row);
        return row;
      });
      return { user, created: true };
    } catch (error) {
      // Another replica created it between our read and write.
      if (!isUniqueViolation(error)) throw error;
      const user = await this.repository.findByEmail(normalized);
      return { user: user!, created: false };
    }
  }

  private hash(password: string): Promise<string> {
    return this.hashing.run(() => bcrypt.hash(password, this.config.bcryptCost));
  }
}
