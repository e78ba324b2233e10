import { normalizeEmail } from '../../common/identity/email';
import { Injectable } from '@nestjs/common';
import type { DbOrTx } from '../../database/database';
import { MessMembersRepository } from './mess-members.repository';
import { type RosterFilter, UsersRepository } from './users.repository';
import { Role, UserRow, UserStatus } from './users.schema';
import './users.errors';

/**
 * Who the members are, as other modules ask: identity look-ups (auth), names and standings by id (bills,
 * attendance), the diners and the approved (analytics, notifications). Changes go through CredentialsService,
 * ProfilesService and UserAdministrationService.
 */
@Injectable()
export class UsersService {
  constructor(
    private readonly repository: UsersRepository,
    // The members of the request's mess: the one guarded path (mess-members.repository.ts).
    private readonly members: MessMembersRepository,
  ) {}

  findByEmail(email: string): Promise<UserRow | undefined> {
    return this.repository.findByEmail(normalizeEmail(email));
  }

  /** The roster of the request's mess: its members, filtered and paged, by name. */
  roster(filter: RosterFilter): Promise<{ rows: UserRow[]; total: number }> {
    return this.members.roster(filter);
  }

  findById(id: string): Promise<UserRow | undefined> {
    return this.repository.findById(id);
  }

  findByIdpId(idpId: string): Promise<UserRow | undefined> {
    return this.repository.findByIdpId(idpId);
  }

  /** Approved members (who may receive notifications), optionally only those with one of `roles`. */
  findApprovedByRoles(roles?: Role[]): Promise<UserRow[]> {
    return this.members.listApproved(roles);
  }

  /** Full names by id, in one query (for bills and lists that hold ids); `db`: the caller's transaction. */
  namesOf(ids: string[], db?: DbOrTx): Promise<Map<string, string>> {
    return this.repository.findNamesByIds(ids, db);
  }

  /** Approval status by id, in one query; unknown ids are absent from the map (attendance checks whom it marks). */
  statusesOf(ids: string[]): Promise<Map<string, UserStatus>> {
    return this.members.findStatusesByIds(ids);
  }

  /** Status and `dines` by id, in one query; unknown ids are absent (attendance checks who may mark what). */
  standingsOf(ids: string[]): Promise<Map<string, { status: UserStatus; dines: boolean }>> {
    return this.members.findStandingsByIds(ids);
  }

  /** Approved members with `dines: true`: totalMembers, the headcount and the attendance rate count only them. */
  countDiners(): Promise<number> {
    return this.members.countDiners();
  }

  /** `countDiners` of every mess, by mess id (a mess without diners is absent). */
  dinersPerMess(): Promise<Map<string, number>> {
    return this.repository.dinersPerMess();
  }

  /** The ids of the approved members who dine. */
  dinerIds(): Promise<string[]> {
    return this.members.dinerIds();
  }

  /** Approved members of every mess now, by mess id (the term lottery's seats); `db`: the caller's transaction. */
  approvedPerMess(db?: DbOrTx): Promise<Map<string, number>> {
    return this.repository.approvedPerMess(db);
  }

  /** These members as they are now (unknown ids are left out); `db`: the caller's transaction. */
  findByIds(ids: string[], db?: DbOrTx): Promise<UserRow[]> {
    return this.repository.findByIds(ids, db);
  }

  /** The approved members who dine, with when their account was made (the first day they can have eaten). */
  dinersWithCreation(): Promise<{ id: string; createdAt: Date }[]> {
    return this.members.dinersWithCreation();
  }

  /** How many members are approved now: the membership that analytics rates attendance against. */
  countApproved(): Promise<number> {
    return this.members.countByStatus('approved');
  }

  async hasApprovedAdmin(): Promise<boolean> {
    return (await this.repository.countByRoleAndStatus('admin', 'approved')) > 0;
  }
}
