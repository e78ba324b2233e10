import { Injectable } from '@nestjs/common';
import type { DbOrTx } from '../../database/database';
import { LeaveRepository } from './leave.repository';

/**
 * What other modules need to know of leave, without its rules: who is on approved leave at a meal's start, and the
 * member's leave lock, which a mark that must not land inside an approved leave holds (shared) while it checks and
 * writes, so an approval (exclusive) cannot slip in between.
 */
@Injectable()
export class LeaveCalendar {
  constructor(private readonly repository: LeaveRepository) {}

  /** Holds the members' leave locks (shared) until `tx` ends. */
  lockShared(tx: DbOrTx, userIds: string[]): Promise<void> {
    return this.repository.lockMembersShared(tx, [...new Set(userIds)].sort());
  }

  /** Of `userIds`, those whose approved leave covers the meal starting at `mealStart`. */
  async onLeave(userIds: string[], mealStart: Date, db?: DbOrTx): Promise<Set<string>> {
    return new Set(await this.repository.approvedAt(mealStart, userIds, db));
  }

  /** Every member whose approved leave covers the meal starting at `mealStart`. */
  async membersOnLeave(mealStart: Date): Promise<string[]> {
    const [members] = await this.repository.approvedAtEach([mealStart]);
    return members;
  }

  /** For each meal start, every member whose approved leave covers it (one read for a day's meals). */
  membersOnLeaveAt(mealStarts: readonly Date[]): Promise<string[][]> {
    return this.repository.approvedAtEach(mealStarts);
  }
}
