import { Injectable } from '@nestjs/common';
import type { SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../database/database';
import { LeaveRepository } from './leave.repository';
import type { LeaveRow } from './leave.schema';

/**
 * What other modules need to know of leave, without its rules: who is on approved leave at a meal's start, and the
 * member's leave lock, which a mark that must not land inside an approved leave holds (shared) while it checks and
 * writes, so an approval (exclusive) cannot slip in between.
 */
@Injectable()
export class LeaveCalendar {
  constructor(private readonly repository: LeaveRepository) {}

  /**
   * A query (one column, `user_id`) for the statement that writes marks: it holds the members' leave locks (shared)
   * until that statement's transaction ends, and answers which of them are on approved leave for the meal starting at
   * `mealStart`, as seen once the locks are held.
   */
  onLeaveLocked(userIds: string[], mealStart: Date): SQL {
    return this.repository.lockedApprovedAt([...new Set(userIds)], mealStart);
  }

  /** Every member whose approved leave covers the meal starting at `mealStart`. */
  async membersOnLeave(mealStart: Date): Promise<string[]> {
    const [members] = await this.repository.approvedAtEach([mealStart]);
    return members;
  }

  /** The approved leaves covering some instant in [from, to): a meal is covered when its start is in [startsAt, endsAt). */
  approvedOverlapping(from: Date, to: Date): Promise<{ userId: string; startsAt: Date; endsAt: Date }[]> {
    return this.repository.approvedOverlapping(from, to);
  }

  /** For each meal start, every member whose approved leave covers it (one read for a day's meals). */
  membersOnLeaveAt(mealStarts: readonly Date[]): Promise<string[][]> {
    return this.repository.approvedAtEach(mealStarts);
  }

  /** The approved leaves with a day in [from, to] (the daily rate's rebates); `db`: the caller's transaction. */
  approvedBetweenDates(from: string, to: string, db?: DbOrTx): Promise<LeaveRow[]> {
    return this.repository.approvedBetweenDates(from, to, db);
  }
}
