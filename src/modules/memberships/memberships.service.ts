import { Injectable } from '@nestjs/common';
import type { CurrentMember } from '../../common/auth/auth.decorators';
import { notFound } from '../../common/errors/api-error';
import { inMess } from '../../common/tenancy/mess-scope';
import { actInMessWithin, type DbOrTx } from '../../database/database';
import { LeaveDecisionsService } from '../leave';
import type { LeaveRow } from '../leave-calendar';
import { MESS_NOT_FOUND, MessDirectory } from '../messes';
import {
  type LockedForMove,
  type MemberMove,
  type MovedMember,
  UserAdministrationService,
  type UserRow,
} from '../users';

/**
 * Moving members between messes (extension 2.2), all in one transaction: the move itself (users, capacity under the
 * messes' locks) and, in each mess members left, their leave whose meals are not over cancelled. One mechanism for
 * every move: one member by hand, a batch by hand, the term moves (issue 34), a few statements per mess concerned.
 */
@Injectable()
export class MembershipsService {
  constructor(
    private readonly administration: UserAdministrationService,
    private readonly leave: LeaveDecisionsService,
    private readonly directory: MessDirectory,
  ) {}

  /** By hand: members to one mess (an `_id` or a slug), all or nothing. Returns every member named, as they are now,
   * and how many changed mess. */
  async move(
    caller: CurrentMember,
    userIds: string[],
    messRef: string,
    // A batch's 404 names the id that names nobody; the route with the id in its path says `User not found`.
    options: { idInPath?: boolean } = {},
  ): Promise<{ members: UserRow[]; moved: number }> {
    const mess = await this.directory.find(messRef);
    if (!mess) throw notFound(MESS_NOT_FOUND);
    const { members, moved } = await this.moveMany(
      caller,
      userIds.map((userId) => ({ userId, messId: mess.id })),
      options,
    );
    return { members, moved: moved.length };
  }

  /**
   * Members each to their mess (ids), in one transaction. `choose`: which of the moves are made, decided under the
   * locks (the term moves record each line's outcome there; a throw undoes everything); by default all or nothing.
   */
  async moveMany(
    caller: CurrentMember,
    moves: readonly MemberMove[],
    options: {
      idInPath?: boolean;
      choose?: (tx: DbOrTx, locked: LockedForMove) => Promise<MemberMove[]>;
    } = {},
  ): Promise<{ members: UserRow[]; moved: MovedMember[] }> {
    // In the move's transaction: the movers' leave in each mess they left, acting in that mess.
    const { members, moved, also } = await this.administration.moveMembers(caller, moves, {
      ...options,
      alsoWithin: async (tx, movers) => {
        const cancelled: { fromMessId: string; rows: LeaveRow[] }[] = [];
        for (const fromMessId of [...new Set(movers.map((m) => m.fromMessId))].sort()) {
          await actInMessWithin(tx, fromMessId);
          const rows = await this.leave.cancelForMoveWithin(
            tx,
            movers.filter((m) => m.fromMessId === fromMessId).map((m) => m.member.id),
            caller.id,
          );
          if (rows.length) cancelled.push({ fromMessId, rows });
        }
        return cancelled;
      },
    });
    for (const { fromMessId, rows } of also ?? []) {
      inMess(fromMessId, () => this.leave.announceCancelledForMove(rows, caller.id));
    }
    return { members, moved };
  }
}
