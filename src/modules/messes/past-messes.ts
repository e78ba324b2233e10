import { Injectable } from '@nestjs/common';
import { AuditTrail, type AuditEntry } from '../audit-trail';

const MOVED = 'moved';

/**
 * What the audit trail keeps of a member's move from one mess to another (extension 2.2): one row in the trail of
 * the mess they join, written in the move's transaction. The users module writes it; `PastMesses` reads it.
 */
export const memberMoved = (
  actorId: string,
  memberId: string,
  fromMessId: string,
  toMessId: string,
): AuditEntry => ({
  actorId,
  action: MOVED,
  entity: 'user',
  entityId: memberId,
  before: { mess: fromMessId },
  after: { mess: toMessId },
});

/**
 * The messes a member belonged to before the one they belong to now: those they were moved out of. Every change of
 * a member's mess is a move, audited in its transaction in an append-only trail, and a member joins their first
 * mess at registration (or creation), so the moves are the whole history: a mess is a past mess of the member
 * exactly when a move took them out of it. There is no table of membership periods (yet); this reads the trail,
 * across messes, through its owner.
 */
@Injectable()
export class PastMesses {
  constructor(private readonly trail: AuditTrail) {}

  /** Whether the member was ever moved out of this mess. One indexed read (the member's moves, a handful). */
  async belongedTo(memberId: string, messId: string): Promise<boolean> {
    const moves = await this.trail.everyMess({ entity: 'user', entityId: memberId, action: MOVED });
    return moves.some((move) => fromMessOf(move.before) === messId);
  }

  /**
   * Every mess the member belonged to, oldest first, with when they joined and left it (extension 2.3's export):
   * the first from `joinedAt` (registration), each move ending one and starting the next, the last still open.
   */
  async periods(memberId: string, currentMessId: string, joinedAt: Date): Promise<MembershipPeriod[]> {
    const moves = await this.trail.everyMess({ entity: 'user', entityId: memberId, action: MOVED });
    const periods: MembershipPeriod[] = [];
    let from = joinedAt;
    for (const move of moves) {
      const left = fromMessOf(move.before);
      if (typeof left !== 'string') continue;
      periods.push({ messId: left, from, to: move.at });
      from = move.at;
    }
    periods.push({ messId: currentMessId, from, to: null });
    return periods;
  }
}

/** A stretch of a member's membership of one mess: from joining to leaving (null: the mess they belong to now). */
export interface MembershipPeriod {
  messId: string;
  from: Date;
  to: Date | null;
}

function fromMessOf(before: unknown): unknown {
  return before && typeof before === 'object' ? (before as { mess?: unknown }).mess : undefined;
}
