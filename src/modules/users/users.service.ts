import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import * as bcrypt from 'bcrypt';
import { AppConfig } from '../../config/app-config';
import { type CurrentMember, isPrivileged } from '../../common/auth/auth.decorators';
import { badRequest, conflict, forbidden, notFound } from '../../common/errors/api-error';
import { isUniqueViolation } from '../../common/errors/database-errors';
import { DomainEvents, type MemberEvent } from '../../common/events/domain-events';
import { publishDomainEvent } from '../../common/events/publish';
import type { DbOrTx } from '../../database/database';
import { ListUsersQuery, UpdateProfileDto } from './dto/user.requests';
import { UsersRepository } from './users.repository';
import { Role, UserRow, UserStatus } from './users.schema';
import './users.errors';

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

  constructor(
    private readonly repository: UsersRepository,
    private readonly config: AppConfig,
    private readonly events: EventEmitter2,
  ) {}

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
    const row = await this.repository.update(userId, { idpId });
    if (!row) throw notFound('User not found');
    return row;
  }

  async passwordMatches(user: UserRow, password: string): Promise<boolean> {
    if (!user.passwordHash) return false;
    return bcrypt.compare(password, user.passwordHash);
  }

  /** Sets a new password and ends every token issued before it. */
  async changePassword(user: UserRow, newPassword: string): Promise<UserRow> {
    const row = await this.repository.updateAndRevokeTokens(user.id, {
      passwordHash: await this.hash(newPassword),
    });
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
    if (existing) {
      const user = await this.repository.updateAndRevokeTokens(existing.id, {
        role: 'admin',
        status: 'approved',
        passwordHash,
      });
      return { user: user!, created: false };
    }
    try {
      const user = await this.repository.insert({
        email: normalized,
        passwordHash,
        fullName,
        role: 'admin',
        status: 'approved',
        // An admin the service creates runs the mess; it does not eat there until an admin says so.
        dines: false,
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
    if (caller.id !== id && !isPrivileged(caller)) throw forbidden('You can only view your own profile');
    return this.getOrThrow(id);
  }

  async updateProfile(caller: CurrentMember, id: string, changes: UpdateProfileDto): Promise<UserRow> {
    if (caller.id !== id && caller.role !== 'admin') throw forbidden('You can only edit your own profile');
    if (changes.fullName === undefined && changes.phone === undefined) {
      throw badRequest('Validation failed', [{ field: 'body', message: 'send fullName and/or phone' }]);
    }
    const row = await this.repository.update(id, {
      ...(changes.fullName !== undefined ? { fullName: changes.fullName } : {}),
      ...(changes.phone !== undefined ? { phone: changes.phone } : {}),
    });
    if (!row) throw notFound('User not found');
    return row;
  }

  async setPhone(caller: CurrentMember, phone: string): Promise<UserRow> {
    const row = await this.repository.update(caller.id, { phone });
    if (!row) throw notFound('User not found');
    return row;
  }

  async changeRole(caller: CurrentMember, id: string, role: Role): Promise<UserRow> {
    const user = await this.getOrThrow(id);
    if (user.role === role) return user;
    const row = this.keptAnAdmin(
      await this.repository.updateKeepingAnAdmin(id, { role }, { revokeTokens: false }),
    );
    this.logger.log({ by: caller.id, userId: id, from: user.role, to: role }, 'Role changed');
    this.publishChange(row, 'role', caller.id);
    return row;
  }

  /** From pending or rejected; approving an approved member changes nothing. */
  async approve(caller: CurrentMember, id: string): Promise<UserRow> {
    const user = await this.getOrThrow(id);
    if (user.status === 'approved') return user;
    const row = await this.repository.update(id, { status: 'approved' });
    this.logger.log({ by: caller.id, userId: id, from: user.status }, 'User approved');
    this.publishChange(row!, 'approved', caller.id);
    return row!;
  }

  /** From pending or approved; rejecting an approved member also ends their sessions. */
  async reject(caller: CurrentMember, id: string): Promise<UserRow> {
    const user = await this.getOrThrow(id);
    if (user.status === 'rejected') return user;
    if (caller.id === id) throw conflict('You cannot reject your own account');
    const row = this.keptAnAdmin(
      await this.repository.updateKeepingAnAdmin(id, { status: 'rejected' }, { revokeTokens: true }),
    );
    this.logger.log({ by: caller.id, userId: id, from: user.status }, 'User rejected');
    this.publishChange(row, 'rejected', caller.id);
    return row;
  }

  /** Admins say who eats at the mess; a change moves every figure that counts diners at once. */
  async setDines(caller: CurrentMember, id: string, dines: boolean): Promise<UserRow> {
    const user = await this.getOrThrow(id);
    if (user.dines === dines) return user;
    const row = await this.repository.update(id, { dines });
    if (!row) throw notFound('User not found');
    this.logger.log({ by: caller.id, userId: id, dines }, 'Dining changed');
    this.publishChange(row, 'dines', caller.id);
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
    publishDomainEvent(this.events, DomainEvents.MemberChanged, event);
  }

  /** The check and the change are one locked transaction in the repository, so concurrent demotions cannot race. */
  private keptAnAdmin(result: UserRow | 'last-admin' | undefined): UserRow {
    if (result === 'last-admin') throw conflict('The last approved admin cannot be demoted or rejected');
    if (!result) throw notFound('User not found');
    return result;
  }

  private async getOrThrow(id: string): Promise<UserRow> {
    const row = await this.repository.findById(id);
    if (!row) throw notFound('User not found');
    return row;
  }

  private hash(password: string): Promise<string> {
    return bcrypt.hash(password, this.config.bcryptCost);
  }
}
