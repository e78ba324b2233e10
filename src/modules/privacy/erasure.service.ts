import { Injectable } from '@nestjs/common';
import { type CurrentMember } from '../../common/auth/auth.decorators';
import { conflict, notFound } from '../../common/errors/api-error';
import { actInMessWithin, Database } from '../../database/database';
import { inTransaction } from '../../database/transactions';
import { AccountsMemberData } from '../accounts';
import { BillingMemberData } from '../billing';
import { FeedbackMemberData } from '../feedback';
import { LeaveMemberData } from '../leave';
import { MessDirectory, PastMesses } from '../messes';
import { NotificationsMemberData } from '../notifications';
import { pseudonymOf, UserAdministrationService, UsersService, type UserRow } from '../users';
import { type ErasureRequestWithName, ErasureRequestsRepository } from './erasure-requests.repository';
import { PersonalTextRepository } from './personal-text.repository';
import { PrivacyErrors } from './privacy.errors';
import type { ErasureRequestRow, ErasureRequestStatus } from './privacy.schema';

/**
 * Erasure requests and erasure (extension 2.3, decision 0010): the person's values removed in one transaction,
 * every record the books need kept under the pseudonym.
 */
@Injectable()
export class ErasureService {
  constructor(
    private readonly requests: ErasureRequestsRepository,
    private readonly users: UsersService,
    private readonly administration: UserAdministrationService,
    private readonly pastMesses: PastMesses,
    private readonly accounts: AccountsMemberData,
    private readonly feedback: FeedbackMemberData,
    private readonly leave: LeaveMemberData,
    private readonly notifications: NotificationsMemberData,
    private readonly billing: BillingMemberData,
    private readonly personalText: PersonalTextRepository,
    private readonly messes: MessDirectory,
    private readonly database: Database,
  ) {}

  /** A member asks for their erasure: 409 while one of theirs is pending. */
  async request(caller: CurrentMember, reason: string | undefined): Promise<ErasureRequestRow> {
    const row = await this.requests.insertPending(caller.id, reason ?? '');
    if (!row) throw conflict(PrivacyErrors.requestPending);
    return row;
  }

  list(status?: ErasureRequestStatus): Promise<ErasureRequestWithName[]> {
    return this.requests.list(status);
  }

  /** The member to export: anyone for an admin (404 for nobody). */
  async member(id: string): Promise<UserRow> {
    const user = await this.users.findById(id);
    if (!user) throw notFound('User not found');
    return user;
  }

  /**
   * Erases a member: 409 `Settle the account first: the balance in <mess> (<slug>) is ₹…` while their balance in
   * any mess they belonged to is not zero, 409 for the last approved admin; otherwise, in one transaction, each
   * module empties the member's own free text in each of those messes (feedback comments, leave reasons, claim
   * notes, their notifications' texts, their name in frozen bills as it was), then one pass over every text column
   * of every table replaces their name by the pseudonym and removes their other values wherever anyone wrote them
   * (the audit trail's and the ledger's by their guards' one removal); their preferences and request reasons go, and
   * the users module pseudonymises the row and takes them off the rolls after today. This module opens the
   * transaction; the users module locks the member first (404, 409 for the last approved admin or one already
   * erased) and pseudonymises them last, by its methods taking it, and publishes the change after the commit.
   */
  async erase(caller: CurrentMember, id: string): Promise<UserRow> {
    const member = await this.member(id);
    const periods = await this.pastMesses.periods(id, member.messId, member.createdAt);
    const messIds = [...new Set(periods.map((p) => p.messId))];
    const erased = await inTransaction(this.database.db, async (tx) => {
      const locked = await this.administration.lockForErasure(tx, id);
      // Moved meanwhile (between the read of their messes and the lock): the mess they are in now counts too.
      if (!messIds.includes(locked.messId)) messIds.push(locked.messId);
      for (const messId of messIds) {
        await actInMessWithin(tx, messId);
        const balance = await this.accounts.balanceOf(id, tx);
        if (balance !== 0)
          throw conflict(PrivacyErrors.settleFirst(await this.messes.label(messId), balance));
      }
      const values = [
        locked.fullName,
        locked.email,
        locked.phone,
        // The phone as people write it too: its ten digits without +91.
        locked.phone?.slice(-10),
        locked.collegeId,
        locked.room,
        locked.idpId,
      ];
      const personal = values.filter((v): v is string => typeof v === 'string' && v.trim().length > 0);
      const person = {
        id,
        fullName: locked.fullName,
        removed: personal.filter((v) => v !== locked.fullName),
        pseudonym: pseudonymOf(id),
      };
      for (const [i, messId] of messIds.entries()) {
        await actInMessWithin(tx, messId);
        // The member's own free text (kept by id, whatever it says) and their names as they were.
        await this.feedback.erase(tx, id);
        await this.leave.erase(tx, id);
        await this.accounts.erase(tx, id);
        await this.notifications.erase(tx, id);
        await this.billing.erase(tx, id, person.pseudonym);
        // Their values wherever anyone wrote them: every table of this mess, and the deployment's tables once.
        await this.personalText.erase(tx, person, i === 0);
      }
      await this.notifications.erasePreferences(tx, id);
      await this.requests.completeFor(tx, id, caller.id);
      return this.administration.eraseWithin(tx, caller, locked);
    });
    this.administration.announceErased(caller, erased);
    return erased;
  }
}
