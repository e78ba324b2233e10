import { Injectable } from '@nestjs/common';
import type { CurrentMember } from '../../common/auth/auth.decorators';
import { notFound } from '../../common/errors/api-error';
import { inMess } from '../../common/tenancy/mess-scope';
import { actInMessWithin, type DbOrTx } from '../../database/database';
import { LeaveDecisionsService } from '../leave';
import type { LeaveRow } from '../leave-calendar';
import { MESS_NOT_FOUND, MessDirectory } from '../messes';
import { UserAdministrationService, type UserRow } from '../users';

/**
 * Moving members between messes (extension 2.2), all in one transaction: the move itself (users, all or nothing,
 * capacity under the mess's lock) and, in each mess a member left, their leave whose meals are not over cancelled.
 */
@Injectable()
export class MembershipsService {
  constructor(
    private readonly administration: UserAdministrationService,
    private readonly leave: LeaveDecisionsService,
    private readonly directory: MessDirectory,
  ) {}

  /** Returns every member named, as they are now, and how many changed mess. */
  async move(
    caller: CurrentMember,
    userIds: string[],
    messRef: string,
    // A batch's 404 names the id that names nobody; the route with the id in its path says `User not found`.
    // `within`: more to do in the move's transaction, before the leave (the term moves claim their line there; a
    // throw undoes the move).
    options: {
      idInPath?: boolean;
      within?: (tx: DbOrTx, movers: { member: UserRow; fromMessId: string }[]) => Promise<void>;
    } = {},
  ): Promise<{ members: UserRow[]; moved: number }> {
    const mess = await this.directory.find(messRef);
    if (!mess) throw notFound(MESS_NOT_FOUND);
    // In the move's transaction: each mover's leave in the mess they left, acting in that mess.
    const { members, moved, also } = await this.administration.moveToMess(
      caller,
      userIds,
      mess.id,
      async (tx, movers) => {
        if (options.within) await options.within(tx, movers);
        const cancelled: { fromMessId: string; rows: LeaveRow[] }[] = [];
        for (const { member, fromMessId } of movers) {
          await actInMessWithin(tx, fromMessId);
          cancelled.push({
            fromMessId,
            rows: await this.leave.cancelForMoveWithin(tx, member.id, caller.id),
          });
        }
        return cancelled;
      },
      options,
    );
    for (const { fromMessId, rows } of also ?? []) {
      inMess(fromMessId, () => this.leave.announceCancelledForMove(rows, caller.id));
    }
    return { members, moved: moved.length };
  }
}
