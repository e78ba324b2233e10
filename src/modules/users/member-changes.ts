import type { DomainEventBus } from '../../common/events/domain-event-bus';
import type { MemberEvent } from '../../common/events/event-map';
import type { UserRow } from './users.schema';

/*
 * What is said of a change to a member's row, whichever service made it: the events after commit, and what the
 * audit trail keeps of a membership change.
 */

/**
 * After the commit of any write of a member's row: who their tokens name is read again (auth's token-holder
 * cache, on every replica). Returns the row.
 */
export function memberUpdated<T extends UserRow | undefined>(events: DomainEventBus, row: T): T {
  if (row) events.publish('member.updated', { userId: row.id, messId: row.messId });
  return row;
}

/** After commit: analytics counts approved members (of the member's mess). */
export function memberChanged(
  events: DomainEventBus,
  row: UserRow,
  change: MemberEvent['change'],
  actorId: string,
): void {
  const event: MemberEvent = {
    userId: row.id,
    change,
    status: row.status,
    role: row.role,
    dines: row.dines,
    actorId,
  };
  // About the member's own mess, whichever mess the request that changed them acted in.
  events.publish('member.changed', { ...event, messId: row.messId });
}

/** What the audit trail keeps of a membership change. */
export const membershipOf = (row: UserRow) => ({ status: row.status, role: row.role });
