import { Injectable } from '@nestjs/common';
import type { DbOrTx } from '../../database/database';
import { LeaveListFilter, LeaveListRow, LeaveRepository } from './leave.repository';
import type { LeaveRow, NewLeaveRow } from './leave.schema';

/**
 * The leave records, for the leave module (its rules and routes): this module owns the `leaves` table, so the rules
 * read and write through here, and the repository (and its SQL) stays this module's own. Each method is the
 * repository's, as is; the leave module opens its transactions itself and hands them to the methods taking `tx`.
 */
@Injectable()
export class LeaveRecords {
  constructor(private readonly repository: LeaveRepository) {}

  /** A member's leaves in the statement's mess, in id order after `after`, `limit` + 1 (extension 2.3's export). */
  memberPage(userId: string, after: string | undefined, limit: number): Promise<LeaveRow[]> {
    return this.repository.memberPage(userId, after, limit);
  }

  /** Erasure (extension 2.3), in its transaction: the member's reasons in the statement's mess emptied. */
  eraseReasons(tx: DbOrTx, userId: string): Promise<void> {
    return this.repository.eraseReasons(tx, userId);
  }

  /** The member's leave lock until `tx` ends: exclusive to ask for or decide a leave, shared for marks. */
  lockMember(tx: DbOrTx, userId: string, mode: 'exclusive' | 'shared'): Promise<void> {
    return this.repository.lockMember(tx, userId, mode);
  }

  /** Exclusive leave locks of many members until `tx` ends (a batch move). */
  lockMembers(tx: DbOrTx, userIds: readonly string[]): Promise<void> {
    return this.repository.lockMembers(tx, userIds);
  }

  /** These members' pending and approved leaves in the statement's mess not over at `now`, cancelled. */
  cancelActiveAfter(
    tx: DbOrTx,
    userIds: readonly string[],
    now: Date,
  ): Promise<{ before: LeaveRow; after: LeaveRow }[]> {
    return this.repository.cancelActiveAfter(tx, userIds, now);
  }

  insert(values: NewLeaveRow, db?: DbOrTx): Promise<LeaveRow> {
    return this.repository.insert(values, db);
  }

  findById(id: string, db?: DbOrTx): Promise<LeaveRow | undefined> {
    return this.repository.findById(id, db);
  }

  update(id: string, values: Partial<NewLeaveRow>, db: DbOrTx): Promise<LeaveRow> {
    return this.repository.update(id, values, db);
  }

  /** The member's pending and approved leaves that share an instant with [startsAt, endsAt). */
  activeOverlapping(userId: string, startsAt: Date, endsAt: Date, db: DbOrTx): Promise<LeaveRow[]> {
    return this.repository.activeOverlapping(userId, startsAt, endsAt, db);
  }

  /** The member's pending and approved leaves with a day in [from, to]. */
  activeBetweenDates(userId: string, from: string, to: string, db: DbOrTx): Promise<LeaveRow[]> {
    return this.repository.activeBetweenDates(userId, from, to, db);
  }

  /** One page, newest first, with the members' names; and the total. */
  list(filter: LeaveListFilter): Promise<{ rows: LeaveListRow[]; total: number }> {
    return this.repository.list(filter);
  }

  fullNameOf(userId: string): Promise<string | null> {
    return this.repository.fullNameOf(userId);
  }
}
