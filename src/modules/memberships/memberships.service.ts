import { Injectable } from '@nestjs/common';
import type { CurrentMember } from '../../common/auth/auth.decorators';
import { conflict, notFound } from '../../common/errors/api-error';
import { inMess } from '../../common/tenancy/mess-scope';
import { actInMessWithin, Database, type DbOrTx } from '../../database/database';
import { inTransaction } from '../../database/transactions';
import { LeaveDecisionsService } from '../leave';
import type { LeaveRow } from '../leave-calendar';
import { MESS_NOT_FOUND, MessDirectory, type MessLabel, type MessRow } from '../messes';
import {
  messIsFull,
  type MovedMember,
  throwIfAnyUnknown,
  UserAdministrationService,
  type UserRow,
} from '../users';

/** A member to move, and the mess they go to. */
export interface MemberMove {
  userId: string;
  messId: string;
}

/** What a move holds locked when it decides which moves to make: the members, their new messes, and how many
 * approved members each of those has now. */
export interface LockedForMove {
  members: UserRow[];
  messes: ReadonlyMap<string, MessRow>;
  approvedIn: ReadonlyMap<string, number>;
}

/** A move made, in its transaction: every member named as they are now, the ones moved (and from where), and the
 * leave it cancelled in each mess they left; `announceMoved` after the commit. */
export interface MoveMade {
  members: UserRow[];
  moved: MovedMember[];
  cancelled: { fromMessId: string; rows: LeaveRow[] }[];
}

/**
 * Moving members between messes (extension 2.2), all in one transaction that this module opens (or its caller,
 * the term moves, with `lockForMove` and `moveWithin`): the rows of the messes they go to are locked first (in id
 * order), then theirs (in id order), so approvals and other moves take turns and each mess's capacity holds under
 * any race; then the users module moves them (its methods taking the transaction) and, in each mess members left,
 * the leave module cancels their leave whose meals are not over. One mechanism for every move: one member by hand,
 * a batch by hand, the term moves (issue 34), a few statements per mess concerned.
 */
@Injectable()
export class MembershipsService {
  constructor(
    private readonly administration: UserAdministrationService,
    private readonly leave: LeaveDecisionsService,
    private readonly directory: MessDirectory,
    private readonly database: Database,
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
   * Members each to their mess (ids), in one transaction, all or nothing: a 404 naming a member not found, a 409
   * for a mess they would fill beyond its capacity. Members already in their mess are left as they are.
   */
  async moveMany(
    caller: CurrentMember,
    moves: readonly MemberMove[],
    options: { idInPath?: boolean } = {},
  ): Promise<{ members: UserRow[]; moved: MovedMember[] }> {
    // Read before the transaction that could refuse: on the embedded engine a read outside an open transaction
    // waits for it (its one connection), so the refusal could never be written inside it.
    const names = await this.directory.labels();
    const made = await inTransaction(this.database.db, async (tx) => {
      const locked = await this.lockForMove(tx, moves);
      return this.moveWithin(tx, caller, locked, allOrNothing(moves, locked, names, options));
    });
    this.announceMoved(caller, made);
    return { members: made.members, moved: made.moved };
  }

  /**
   * In the caller's transaction, before it decides which moves to make: the messes the members would go to locked
   * (in id order; 404 when one is not a mess), then the members (in id order), and how many approved members each
   * of those messes has now.
   */
  async lockForMove(tx: DbOrTx, moves: readonly MemberMove[]): Promise<LockedForMove> {
    const targets = [...new Set(moves.map((m) => m.messId))].sort();
    const messes = new Map((await this.directory.lockMany(tx, targets)).map((m) => [m.id, m]));
    if (targets.some((id) => !messes.has(id))) throw notFound(MESS_NOT_FOUND);
    const members = await this.administration.lockMembers(
      tx,
      moves.map((m) => m.userId),
    );
    const approvedIn = await this.administration.approvedIn(tx, targets);
    return { members, messes, approvedIn };
  }

  /**
   * In the caller's transaction, after `lockForMove`: the moves `chosen` (members already in their mess are left as
   * they are) made by the users module, then, in each mess the movers left, their leave whose meals are not over
   * cancelled (acting in that mess). A throw undoes everything.
   */
  async moveWithin(
    tx: DbOrTx,
    caller: CurrentMember,
    locked: LockedForMove,
    chosen: readonly MemberMove[],
  ): Promise<MoveMade> {
    const byId = new Map(locked.members.map((m) => [m.id, m]));
    const movers = chosen
      .map((m) => ({ member: byId.get(m.userId)!, to: m.messId }))
      .filter(({ member, to }) => member && member.messId !== to);
    const moved = await this.administration.moveWithin(tx, caller, movers, [...locked.messes.keys()].sort());
    const cancelled: MoveMade['cancelled'] = [];
    for (const fromMessId of [...new Set(moved.map((m) => m.fromMessId))].sort()) {
      await actInMessWithin(tx, fromMessId);
      const rows = await this.leave.cancelForMoveWithin(
        tx,
        moved.filter((m) => m.fromMessId === fromMessId).map((m) => m.member.id),
        caller.id,
      );
      if (rows.length) cancelled.push({ fromMessId, rows });
    }
    const after = new Map(moved.map((m) => [m.member.id, m.member]));
    return { members: locked.members.map((m) => after.get(m.id) ?? m), moved, cancelled };
  }

  /** After the move committed: the members' changes published, each cancelled leave's line in its mess's log. */
  announceMoved(caller: CurrentMember, made: MoveMade): void {
    this.administration.announceMoved(caller, made.moved);
    for (const { fromMessId, rows } of made.cancelled) {
      inMess(fromMessId, () => this.leave.announceCancelledForMove(rows, caller.id));
    }
  }
}

/** The moves by hand: every member named exists (404 naming the first that does not); no mess ends above capacity. */
function allOrNothing(
  moves: readonly MemberMove[],
  { members, messes, approvedIn }: LockedForMove,
  names: ReadonlyMap<string, MessLabel>,
  options: { idInPath?: boolean },
): MemberMove[] {
  throwIfAnyUnknown(
    moves.map((m) => m.userId),
    members,
    options,
  );
  const byId = new Map(members.map((m) => [m.id, m]));
  const arriving = new Map<string, number>();
  for (const move of moves) {
    const member = byId.get(move.userId)!;
    if (member.messId !== move.messId && member.status === 'approved')
      arriving.set(move.messId, (arriving.get(move.messId) ?? 0) + 1);
  }
  for (const [messId, n] of arriving) {
    const capacity = messes.get(messId)!.capacity;
    if (capacity !== null && (approvedIn.get(messId) ?? 0) + n > capacity)
      throw conflict(messIsFull(names, messId));
  }
  return [...moves];
}
