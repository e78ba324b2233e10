import { actInMessWithin, type DbOrTx } from '../../database/database';
import {
  MESS_NOT_FOUND,
  memberMoved,
  MessDirectory,
  MessesRepository,
  type MessLabel,
  type MessRow,
} from '../messes';
import { namedMessId } from '../../common/tenancy/mess-scope';
import { Injectable, Logger } from '@nestjs/common';
import { type CurrentMember } from '../../common/auth/auth.decorators';
import { can } from '../../common/auth/permissions';
import { conflict, notFound } from '../../common/errors/api-error';
import { DomainEventBus } from '../../common/events/domain-event-bus';
import { AuditTrail } from '../audit-trail';
import { ListUsersQuery } from './dto/user.requests';
import { memberChanged, memberUpdated, membershipOf } from './member-changes';
import { MembershipPeriods } from './membership-periods';
import { UsersRepository } from './users.repository';
import type { Role, UserRow, UserStatus } from './users.schema';

/** A member to move, and the mess they go to. */
export interface MemberMove {
  userId: string;
  messId: string;
}

/** A member moved, as they are now, and the mess they left. */
export interface MovedMember {
  member: UserRow;
  fromMessId: string;
}

/** What a batch move holds locked when it decides which moves to make: the members, their new messes, and how many
 * approved members each of those has now. */
export interface LockedForMove {
  members: UserRow[];
  messes: ReadonlyMap<string, MessRow>;
  approvedIn: ReadonlyMap<string, number>;
}

/** A batch names every member it acts on: the first id (in the order sent) that names nobody is a 404 naming it. */
function throwIfAnyUnknown(ids: string[], found: UserRow[], options: { idInPath?: boolean } = {}): void {
  // An erased member is kept for the books only: to a change, they are nobody.
  const known = new Set(found.filter((m) => m.status !== 'erased').map((m) => m.id.toLowerCase()));
  const unknown = ids.find((id) => !known.has(id.toLowerCase()));
  if (unknown !== undefined)
    throw notFound(options.idInPath ? 'User not found' : `User ${unknown} not found`);
}

/** The name an erased member keeps (extension 2.3): `Former member` and the first 6 characters of their id. */
export const pseudonymOf = (id: string): string => `Former member ${id.slice(0, 6)}`;

/** The permission that makes a member an administrator: the last approved holder cannot be demoted or rejected. */
const ADMINISTERS = 'users.manage' as const;

/** The admins' say over the membership: approval and rejection, roles, and who dines; never the last admin away. */
@Injectable()
export class UserAdministrationService {
  // The context the users' log lines have always had.
  private readonly logger = new Logger('UsersService');

  constructor(
    private readonly repository: UsersRepository,
    private readonly events: DomainEventBus,
    private readonly audit: AuditTrail,
    private readonly messes: MessesRepository,
    private readonly directory: MessDirectory,
    private readonly periods: MembershipPeriods,
  ) {}

  /**
   * Erasure (extension 2.3, decision 0010), in one transaction: the member's row locked (and every approved admin's
   * first, for the last-admin rule), `alsoWithin` run with it (the other modules' values, the balance check), then
   * the row pseudonymised: `Former member <6>`, no email (a placeholder that names nobody, so the address is free),
   * phone, college id, room, identity-provider subject, password or notice; `erased`, every token ended; and one
   * `user`/`erased` audit row in the member's mess with no personal value; off the rolls after today (their open
   * stretch ends at the next midnight). Published after commit: their tokens are read again on every replica and the
   * bills forget them (`member.changed`). 404 for nobody, 409 for the last approved admin or one already erased.
   */
  async erase(
    caller: CurrentMember,
    id: string,
    alsoWithin: (tx: DbOrTx, member: UserRow) => Promise<void>,
  ): Promise<UserRow> {
    const erased = await this.repository.transaction(async (tx) => {
      const { member, approvedAdminIds } = await this.repository.lockForChange(tx, id, {
        approvedAdmins: true,
      });
      if (!member) throw notFound('User not found');
      if (member.status === 'erased') throw conflict('The member is already erased');
      if (approvedAdminIds.includes(id) && approvedAdminIds.length <= 1)
        throw conflict('The last approved admin cannot be erased');
      await alsoWithin(tx, member);
      // Off the rolls of their mess (the daily rate) after today: nothing may take an erased member off later.
      await this.periods.endAfterToday(tx, id, member.messId);
      const row = (await this.repository.updateAndRevokeTokens(
        id,
        {
          status: 'erased',
          fullName: pseudonymOf(id),
          email: `${id}@erased.invalid`,
          passwordHash: null,
          phone: null,
          collegeId: '',
          room: '',
          idpId: null,
          noticeVersion: null,
          noticeAcceptedAt: null,
        },
        tx,
      ))!;
      await actInMessWithin(tx, member.messId);
      await this.audit.record(tx, {
        actorId: caller.id,
        action: 'erased',
        entity: 'user',
        entityId: id,
        before: { status: member.status },
        after: { status: 'erased' },
      });
      return row;
    });
    this.logger.log({ by: caller.id, userId: id }, 'Member erased');
    memberUpdated(this.events, erased);
    memberChanged(this.events, erased, 'erased', caller.id);
    return erased;
  }

  /**
   * Moves members, each to its mess (extension 2.2), in one transaction and a few statements per mess concerned
   * however many members: the rows of the messes they go to are locked first (in id order), then theirs (in id
   * order), so approvals and other moves take turns and each mess's capacity holds under any race. `choose` decides,
   * under those locks, which moves are made; by default all or nothing (a 404 naming a member not found, a 409 for a
   * mess they would fill beyond its capacity). Members already in their mess are left as they are. From now on the
   * members act in the new mess; what they did in the old one stays there. Each move goes into the audit trail of
   * the mess joined; an approved member leaves the old mess's rolls and joins the new one's. `alsoWithin`: what
   * must go with the moves in their transaction (the leave they end). Returns every member named, as they are now,
   * and where the moved ones came from.
   */
  async moveMembers<T = undefined>(
    caller: CurrentMember,
    moves: readonly MemberMove[],
    options: {
      idInPath?: boolean;
      choose?: (tx: DbOrTx, locked: LockedForMove) => Promise<MemberMove[]>;
      alsoWithin?: (tx: DbOrTx, moved: MovedMember[]) => Promise<T>;
    } = {},
  ): Promise<{ members: UserRow[]; moved: MovedMember[]; also?: T }> {
    const ids = moves.map((m) => m.userId);
    const targets = [...new Set(moves.map((m) => m.messId))].sort();
    const names = options.choose ? undefined : await this.messNames();
    const result = await this.repository.transaction(async (tx) => {
      const messes = new Map((await this.messes.lockMany(targets, tx)).map((m) => [m.id, m]));
      if (targets.some((id) => !messes.has(id))) throw notFound(MESS_NOT_FOUND);
      const locked = await this.repository.lockMany(tx, ids);
      const approvedIn = await this.repository.approvedIn(targets, tx);
      const chosen = options.choose
        ? await options.choose(tx, { members: locked, messes, approvedIn })
        : this.allOrNothing(moves, { members: locked, messes, approvedIn }, names!, options);
      const byId = new Map(locked.map((m) => [m.id, m]));
      const movers = chosen
        .map((m) => ({ member: byId.get(m.userId)!, to: m.messId }))
        .filter(({ member, to }) => member && member.messId !== to);
      const after = new Map<string, UserRow>();
      for (const messId of targets) {
        const into = movers.filter((m) => m.to === messId);
        if (!into.length) continue;
        for (const row of await this.repository.setMess(
          into.map((m) => m.member.id),
          messId,
          tx,
        ))
          after.set(row.id, row);
        // The audit trail of the mess they join says who moved them, and from where (what PastMesses reads).
        await actInMessWithin(tx, messId);
        await this.audit.recordMany(
          tx,
          into.map(({ member }) => memberMoved(caller.id, member.id, member.messId, messId)),
        );
      }
      // An approved member leaves the old mess's rolls and joins the new one's today (extension 2.3): every stretch
      // ended before any begins (one open stretch per member).
      const approved = movers.filter(({ member }) => member.status === 'approved');
      for (const from of [...new Set(approved.map(({ member }) => member.messId))].sort())
        await this.periods.endMany(
          tx,
          approved.filter(({ member }) => member.messId === from).map(({ member }) => member.id),
          from,
        );
      for (const messId of targets)
        await this.periods.beginMany(
          tx,
          approved
            .filter(({ to }) => to === messId)
            .map(({ member }) => ({ userId: member.id, dines: member.dines })),
          messId,
        );
      const moved = movers.map(({ member }) => ({
        member: after.get(member.id)!,
        fromMessId: member.messId,
      }));
      // What must go with the move (the leave it ends in the old messes), in this same transaction.
      const also = options.alsoWithin ? await options.alsoWithin(tx, moved) : undefined;
      return { members: locked.map((m) => after.get(m.id) ?? m), moved, also };
    });
    for (const { member, fromMessId } of result.moved) {
      this.logger.log(
        { by: caller.id, userId: member.id, from: fromMessId, to: member.messId },
        'Member moved',
      );
      memberUpdated(this.events, member);
      // The rolls of both messes changed (the daily rate's bills).
      if (member.status === 'approved') memberChanged(this.events, member, 'moved', caller.id);
    }
    return result;
  }

  /** The moves by hand: every member named exists (404 naming the first that does not); no mess ends above capacity. */
  private allOrNothing(
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
        throw conflict(this.fullMessage(names, messId));
    }
    return [...moves];
  }

  /**
   * Approves members in bulk, all or nothing, by the single approval's rules: the rows of their messes are locked
   * first (in id order), then theirs (in id order), so the capacity of each mess holds against approvals and moves
   * racing this one. Members already approved are left as they are. Each approval goes into its member's mess's
   * audit trail and publishes `member.changed`, as one approval does. Returns the members that changed.
   */
  async approveMany(caller: CurrentMember, ids: string[]): Promise<UserRow[]> {
    const names = await this.messNames();
    const approved = await this.repository.transaction(async (tx) => {
      const messIds = [...new Set((await this.repository.messesOf(ids, tx)).map((m) => m.messId))].sort();
      const messes = new Map<string, MessRow>();
      for (const messId of messIds) {
        const mess = await this.messes.lock(messId, tx);
        if (mess) messes.set(messId, mess);
      }
      const locked = await this.repository.lockMany(tx, ids);
      throwIfAnyUnknown(ids, locked);
      const approving = locked.filter((m) => m.status !== 'approved');
      const byMess = new Map<string, UserRow[]>();
      for (const member of approving) {
        // Moved into a mess whose row this transaction did not lock: its capacity is not ours to judge.
        if (!messes.has(member.messId)) throw conflict('The member was moved meanwhile; try again');
        byMess.set(member.messId, [...(byMess.get(member.messId) ?? []), member]);
      }
      for (const [messId, joining] of byMess) {
        const capacity = messes.get(messId)!.capacity;
        if (
          capacity !== null &&
          (await this.repository.countApprovedIn(messId, tx)) + joining.length > capacity
        )
          throw conflict(this.fullMessage(names, messId));
      }
      const after = new Map(
        (
          await this.repository.approveAll(
            approving.map((m) => m.id),
            tx,
          )
        ).map((r) => [r.id, r]),
      );
      for (const [messId, joining] of byMess) {
        // Into the audit trail of the members' mess (one statement per mess), whichever mess the request acts in.
        await actInMessWithin(tx, messId);
        await this.audit.recordMany(
          tx,
          joining.map((member) => ({
            actorId: caller.id,
            action: 'approved',
            entity: 'user',
            entityId: member.id,
            before: membershipOf(member),
            after: membershipOf(after.get(member.id)!),
          })),
        );
        for (const member of joining) await this.periods.begin(tx, member.id, messId, member.dines);
      }
      return approving.map((m) => ({ before: m, after: after.get(m.id)! }));
    });
    for (const { before, after } of approved) {
      this.logger.log({ by: caller.id, userId: after.id, from: before.status }, 'User approved');
      memberUpdated(this.events, after);
      memberChanged(this.events, after, 'approved', caller.id);
    }
    return approved.map((a) => a.after);
  }

  /**
   * The messes' names a capacity refusal may need, read before the transaction that could refuse: on the embedded
   * engine a read outside an open transaction waits for that transaction (its one connection), so the refusal
   * could never be written inside it (the database layer refuses such a read: StatementOutsideTransactionError).
   */
  private messNames(): Promise<ReadonlyMap<string, MessLabel>> {
    return this.directory.labels();
  }

  private fullMessage(labels: ReadonlyMap<string, MessLabel>, messId: string): string {
    return `Mess ${labels.get(messId)?.messName ?? ''} is full`;
  }

  async list(query: ListUsersQuery): Promise<{ rows: UserRow[]; total: number }> {
    return this.repository.list({
      messId: namedMessId(),
      status: query.status,
      role: query.role,
      limit: query.limit,
      offset: (query.page - 1) * query.limit,
    });
  }

  async changeRole(caller: CurrentMember, id: string, role: Role): Promise<UserRow> {
    const { before, after } = await this.changeMember(caller, id, 'role-changed', { role });
    if (after !== before) {
      this.logger.log({ by: caller.id, userId: id, from: before.role, to: role }, 'Role changed');
      memberChanged(this.events, after, 'role', caller.id);
    }
    return after;
  }

  /** From pending or rejected; approving an approved member changes nothing. */
  async approve(caller: CurrentMember, id: string): Promise<UserRow> {
    const { before, after } = await this.changeMember(caller, id, 'approved', { status: 'approved' });
    if (after !== before) {
      this.logger.log({ by: caller.id, userId: id, from: before.status }, 'User approved');
      memberChanged(this.events, after, 'approved', caller.id);
    }
    return after;
  }

  /** From pending or approved; rejecting an approved member also ends their sessions. */
  async reject(caller: CurrentMember, id: string): Promise<UserRow> {
    const { before, after } = await this.changeMember(caller, id, 'rejected', { status: 'rejected' });
    if (after !== before) {
      this.logger.log({ by: caller.id, userId: id, from: before.status }, 'User rejected');
      memberChanged(this.events, after, 'rejected', caller.id);
    }
    return after;
  }

  /** Admins say who eats at the mess; a change moves every figure that counts diners at once. */
  async setDines(caller: CurrentMember, id: string, dines: boolean): Promise<UserRow> {
    const user = await this.repository.findById(id);
    if (!user || user.status === 'erased') throw notFound('User not found');
    if (user.dines === dines) return user;
    // Who is billed is a membership change: recorded in the audit trail in the same transaction.
    const row = await this.repository.transaction(async (tx) => {
      const updated = await this.repository.update(id, { dines }, tx);
      if (!updated) throw notFound('User not found');
      await actInMessWithin(tx, updated.messId);
      await this.audit.record(tx, {
        actorId: caller.id,
        action: 'dines-changed',
        entity: 'user',
        entityId: id,
        before: { dines: user.dines },
        after: { dines },
      });
      // On the rolls only while dining: a new stretch from today (extension 2.3).
      if (updated.status === 'approved') {
        await this.periods.end(tx, id, updated.messId);
        await this.periods.begin(tx, id, updated.messId, dines);
      }
      return updated;
    });
    this.logger.log({ by: caller.id, userId: id, dines }, 'Dining changed');
    memberUpdated(this.events, row);
    memberChanged(this.events, row, 'dines', caller.id);
    return row;
  }

  /**
   * Sets a member's status or role in one transaction that locks the row (and, when the change could leave no
   * approved admin, every approved admin's row first), checks the rules on what it locked, and records the change
   * in the audit trail. `after` is `before` itself when the member already had these values (nothing written).
   */
  private async changeMember(
    caller: CurrentMember,
    id: string,
    action: 'approved' | 'rejected' | 'role-changed',
    values: { role?: Role; status?: UserStatus },
  ): Promise<{ before: UserRow; after: UserRow }> {
    const mayRemoveAnAdmin =
      values.role !== undefined ? !can({ role: values.role }, ADMINISTERS) : values.status !== 'approved';
    // Approving counts against the capacity of the member's mess: its row is locked before the member's, as a move
    // locks it, so an approval and a move into a full mess take turns.
    const messOfMember =
      values.status === 'approved' ? (await this.repository.findById(id))?.messId : undefined;
    const names = messOfMember ? await this.messNames() : undefined;
    const change = await this.repository.transaction(async (tx) => {
      const mess = messOfMember ? await this.messes.lock(messOfMember, tx) : undefined;
      const { member, approvedAdminIds } = await this.repository.lockForChange(tx, id, {
        approvedAdmins: mayRemoveAnAdmin,
      });
      // An erased member is kept for the books only: nobody changes them any more.
      if (!member || member.status === 'erased') throw notFound('User not found');
      if (mess && member.status !== 'approved') {
        if (member.messId !== mess.id) throw conflict('The member was moved meanwhile; try again');
        if (mess.capacity !== null && (await this.repository.countApprovedIn(mess.id, tx)) >= mess.capacity)
          throw conflict(this.fullMessage(names!, mess.id));
      }
      const role = values.role ?? member.role;
      const status = values.status ?? member.status;
      if (role === member.role && status === member.status) return { before: member, after: member };
      if (status === 'rejected' && caller.id === id) throw conflict('You cannot reject your own account');
      const wasApprovedAdmin = approvedAdminIds.includes(id);
      const staysApprovedAdmin = can({ role }, ADMINISTERS) && status === 'approved';
      if (wasApprovedAdmin && !staysApprovedAdmin && approvedAdminIds.length <= 1) {
        throw conflict('The last approved admin cannot be demoted or rejected');
      }
      // A rejected member's sessions end at once; a role change takes effect on their next request anyway.
      const after =
        status === 'rejected' && member.status !== 'rejected'
          ? await this.repository.updateAndRevokeTokens(id, { role, status }, tx)
          : await this.repository.update(id, { role, status }, tx);
      if (!after) throw notFound('User not found');
      // Into the audit trail of the member's mess, whichever mess the admin's request acts in.
      await actInMessWithin(tx, member.messId);
      await this.audit.record(tx, {
        actorId: caller.id,
        action,
        entity: 'user',
        entityId: id,
        before: membershipOf(member),
        after: membershipOf(after),
      });
      // On the mess's rolls from the approval to the rejection (extension 2.3).
      if (member.status !== 'approved' && after.status === 'approved') {
        await this.periods.begin(tx, id, member.messId, after.dines);
      } else if (member.status === 'approved' && after.status !== 'approved') {
        await this.periods.end(tx, id, member.messId);
      }
      return { before: member, after };
    });
    if (change.after !== change.before) memberUpdated(this.events, change.after);
    return change;
  }
}
