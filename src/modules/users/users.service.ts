import { can } from '../../common/auth/permissions';
import { Injectable, Logger } from '@nestjs/common';
import * as bcrypt from 'bcrypt';
import { AppConfig } from '../../config/app-config';
import { WorkLimiter } from '../../common/concurrency/work-limiter';
import { type CurrentMember } from '../../common/auth/auth.decorators';
import { badRequest, conflict, forbidden, notFound } from '../../common/errors/api-error';
import { isUniqueViolation } from '../../common/errors/database-errors';
import { type MemberEvent } from '../../common/events/event-map';
import { DomainEventBus } from '../../common/events/domain-event-bus';
import type { DbOrTx } from '../../database/database';
import { AuditTrail } from '../audit-trail';
import { ListUsersQuery, UpdateProfileDto } from './dto/user.requests';
import { UsersRepository } from './users.repository';
import { Role, UserRow, UserStatus } from './users.schema';
import './users.errors';

/** The permission that makes a member an administrator: the last approved holder cannot be demoted or rejected. */
const ADMINISTERS = 'users.manage' as const;

export interface NewMember {
  email: string;
  password: string;
  fullName: string;
  collegeId: string;
  room: string;
  phone: string;
}

export interface IdpIdentity {
  idpId: string;
  email: string;
  fullName: string;
}

/** Members, their roles and approval; the owner of the `users` table. */
@Injectable()
export class UsersService {
  private readonly logger = new Logger(UsersService.name);
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

  // ---- identity (used by auth) ----

  findByEmail(email: string): Promise<UserRow | undefined> {
    return this.repository.findByEmail(email.trim().toLowerCase());
  }

  findById(id: string): Promise<UserRow | undefined> {
    return this.repository.findById(id);
  }

  findByIdpId(idpId: string): Promise<UserRow | undefined> {
    return this.repository.findByIdpId(idpId);
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
    const row = this.updated(await this.repository.update(userId, { idpId }));
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
    const row = this.updated(
      await this.repository.updateAndRevokeTokens(user.id, { passwordHash: await this.hash(newPassword) }),
    );
    if (!row) throw notFound('User not found');
    return row;
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
    const normalized = email.trim().toLowerCase();
    const existing = await this.repository.findByEmail(normalized);
    const passwordHash = await this.hash(password);
    // No actor: the start-up bootstrap or an operator's command line, never a request.
    const audit = (tx: DbOrTx, user: UserRow, before?: UserRow) =>
      this.audit.record(tx, {
        actorId: null,
        action: 'admin-ensured',
        entity: 'user',
        entityId: user.id,
        before: before && membershipOf(before),
        after: membershipOf(user),
      });
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
      return { user: this.updated(user), created: false };
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

  /** Approved members (who may receive notifications), optionally only those with one of `roles`. */
  findApprovedByRoles(roles?: Role[]): Promise<UserRow[]> {
    return this.repository.listApproved(roles);
  }

  /** Full names by id, in one query (for bills and lists that hold ids); `db`: the caller's transaction. */
  namesOf(ids: string[], db?: DbOrTx): Promise<Map<string, string>> {
    return this.repository.findNamesByIds(ids, db);
  }

  /** Approval status by id, in one query; unknown ids are absent from the map (attendance checks whom it marks). */
  statusesOf(ids: string[]): Promise<Map<string, UserStatus>> {
    return this.repository.findStatusesByIds(ids);
  }

  /** Status and `dines` by id, in one query; unknown ids are absent (attendance checks who may mark what). */
  standingsOf(ids: string[]): Promise<Map<string, { status: UserStatus; dines: boolean }>> {
    return this.repository.findStandingsByIds(ids);
  }

  /** Approved members with `dines: true`: totalMembers, the headcount and the attendance rate count only them. */
  countDiners(): Promise<number> {
    return this.repository.countDiners();
  }

  /** The ids of the approved members who dine. */
  dinerIds(): Promise<string[]> {
    return this.repository.dinerIds();
  }

  /** How many members are approved now: the membership that analytics rates attendance against. */
  countApproved(): Promise<number> {
    return this.repository.countByStatus('approved');
  }

  async hasApprovedAdmin(): Promise<boolean> {
    return (await this.repository.countByRoleAndStatus('admin', 'approved')) > 0;
  }

  // ---- administration and profiles ----

  async list(query: ListUsersQuery): Promise<{ rows: UserRow[]; total: number }> {
    return this.repository.list({
      status: query.status,
      role: query.role,
      limit: query.limit,
      offset: (query.page - 1) * query.limit,
    });
  }

  /** A member reads themself; admins, managers and treasurers read anyone. */
  async getVisibleTo(caller: CurrentMember, id: string): Promise<UserRow> {
    if (caller.id !== id && !can(caller, 'users.read-any')) throw forbidden('You can only view your own profile');
    return this.getOrThrow(id);
  }

  async updateProfile(caller: CurrentMember, id: string, changes: UpdateProfileDto): Promise<UserRow> {
    if (caller.id !== id && !can(caller, 'users.edit-any')) throw forbidden('You can only edit your own profile');
    const { fullName, phone, room } = changes;
    if (fullName === undefined && phone === undefined && room === undefined) {
      throw badRequest('Validation failed', [
        { field: 'body', message: 'send at least one of fullName, phone, room' },
      ]);
    }
    const row = this.updated(
      await this.repository.update(id, {
        ...(fullName !== undefined ? { fullName } : {}),
        ...(phone !== undefined ? { phone } : {}),
        ...(room !== undefined ? { room } : {}),
      }),
    );
    if (!row) throw notFound('User not found');
    return row;
  }

  async setPhone(caller: CurrentMember, phone: string): Promise<UserRow> {
    const row = this.updated(await this.repository.update(caller.id, { phone }));
    if (!row) throw notFound('User not found');
    return row;
  }

  async changeRole(caller: CurrentMember, id: string, role: Role): Promise<UserRow> {
    const { before, after } = await this.changeMember(caller, id, 'role-changed', { role });
    if (after !== before) {
      this.logger.log({ by: caller.id, userId: id, from: before.role, to: role }, 'Role changed');
      this.publishChange(after, 'role', caller.id);
    }
    return after;
  }

  /** From pending or rejected; approving an approved member changes nothing. */
  async approve(caller: CurrentMember, id: string): Promise<UserRow> {
    const { before, after } = await this.changeMember(caller, id, 'approved', { status: 'approved' });
    if (after !== before) {
      this.logger.log({ by: caller.id, userId: id, from: before.status }, 'User approved');
      this.publishChange(after, 'approved', caller.id);
    }
    return after;
  }

  /** From pending or approved; rejecting an approved member also ends their sessions. */
  async reject(caller: CurrentMember, id: string): Promise<UserRow> {
    const { before, after } = await this.changeMember(caller, id, 'rejected', { status: 'rejected' });
    if (after !== before) {
      this.logger.log({ by: caller.id, userId: id, from: before.status }, 'User rejected');
      this.publishChange(after, 'rejected', caller.id);
    }
    return after;
  }

  /**
   * Sets a member's status or role in one transaction that locks the row (and, when the change could leave no
   * approved admin, every approved admin's row first), checks the rules on what it locked, and records the change
   * in the audit trail. `after` is `before` itself when the member already had these values (nothing written).
   */
  private async changeMember(
    caller: CurrentMember,
    id: string,
    action: 'approved' | 'rejected' | 'role-changed',
    values: { role?: Role; status?: UserStatus },
  ): Promise<{ before: UserRow; after: UserRow }> {
    const mayRemoveAnAdmin =
      values.role !== undefined ? !can({ role: values.role }, ADMINISTERS) : values.status !== 'approved';
    const change = await this.repository.transaction(async (tx) => {
      const { member, approvedAdminIds } = await this.repository.lockForChange(tx, id, {
        approvedAdmins: mayRemoveAnAdmin,
      });
      if (!member) throw notFound('User not found');
      const role = values.role ?? member.role;
      const status = values.status ?? member.status;
      if (role === member.role && status === member.status) return { before: member, after: member };
      if (status === 'rejected' && caller.id === id) throw conflict('You cannot reject your own account');
      const wasApprovedAdmin = approvedAdminIds.includes(id);
      const staysApprovedAdmin = can({ role }, ADMINISTERS) && status === 'approved';
      if (wasApprovedAdmin && !staysApprovedAdmin && approvedAdminIds.length <= 1) {
        throw conflict('The last approved admin cannot be demoted or rejected');
      }
      // A rejected member's sessions end at once; a role change takes effect on their next request anyway.
      const after =
        status === 'rejected' && member.status !== 'rejected'
          ? await this.repository.updateAndRevokeTokens(id, { role, status }, tx)
          : await this.repository.update(id, { role, status }, tx);
      if (!after) throw notFound('User not found');
      await this.audit.record(tx, {
        actorId: caller.id,
        action,
        entity: 'user',
        entityId: id,
        before: membershipOf(member),
        after: membershipOf(after),
      });
      return { before: member, after };
    });
    if (change.after !== change.before) this.updated(change.after);
    return change;
  }

  /** Admins say who eats at the mess; a change moves every figure that counts diners at once. */
  async setDines(caller: CurrentMember, id: string, dines: boolean): Promise<UserRow> {
    const user = await this.getOrThrow(id);
    if (user.dines === dines) return user;
    // Who is billed is a membership change: recorded in the audit trail in the same transaction.
    const row = await this.repository.transaction(async (tx) => {
      const updated = await this.repository.update(id, { dines }, tx);
      if (!updated) throw notFound('User not found');
      await this.audit.record(tx, {
        actorId: caller.id,
        action: 'dines-changed',
        entity: 'user',
        entityId: id,
        before: { dines: user.dines },
        after: { dines },
      });
      return updated;
    });
    this.logger.log({ by: caller.id, userId: id, dines }, 'Dining changed');
    this.updated(row);
    this.publishChange(row, 'dines', caller.id);
    return row;
  }

  /**
   * After the commit of any write of a member's row: who their tokens name is read again (auth's token-holder
   * cache, on every replica). Returns the row.
   */
  private updated<T extends UserRow | undefined>(row: T): T {
    if (row) this.events.publish('member.updated', { userId: row.id });
    return row;
  }

  /** After commit: analytics counts approved members. */
  private publishChange(row: UserRow, change: MemberEvent['change'], actorId: string): void {
    const event: MemberEvent = {
      userId: row.id,
      change,
      status: row.status,
      role: row.role,
      dines: row.dines,
      actorId,
    };
    this.events.publish('member.changed', event);
  }

  private async getOrThrow(id: string): Promise<UserRow> {
    const row = await this.repository.findById(id);
    if (!row) throw notFound('User not found');
    return row;
  }

  private hash(password: string): Promise<string> {
    return this.hashing.run(() => bcrypt.hash(password, this.config.bcryptCost));
  }
}

/** What the audit trail keeps of a membership change. */
const membershipOf = (row: UserRow) => ({ status: row.status, role: row.role });
