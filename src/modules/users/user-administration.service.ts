import { actInMessWithin, type DbOrTx } from '../../database/database';
import { memberMoved, MessDirectory, type MessLabel, type MessRow } from '../messes';
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

/** A member moved, as they are now, and the mess they left. */
export interface MovedMember {
  member: UserRow;
  fromMessId: string;
}

/** A batch names every member it acts on: the first id (in the order sent) that names nobody is a 404 naming it. */
export function throwIfAnyUnknown(
  ids: string[],
  found: UserRow[],
  options: { idInPath?: boolean } = {},
): void {
  // An erased member is kept for the books only: to a change, they are nobody.
  const known = new Set(found.filter((m) => m.status !== 'erased').map((m) => m.id.toLowerCase()));
  const unknown = ids.find((id) => !known.has(id.toLowerCase()));
  if (unknown !== undefined)
    throw notFound(options.idInPath ? 'User not found' : `User ${unknown} not found`);
}

/** The refusal of a change that would fill a mess beyond its capacity (an approval, a move): 409 with this. */
export const messIsFull = (labels: ReadonlyMap<string, MessLabel>, messId: string): string =>
  `Mess ${labels.get(messId)?.messName ?? ''} is full`;

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
    private readonly directory: MessDirectory,
    private readonly periods: MembershipPeriods,
  ) {}

  /**
   * In the caller's transaction (erasure's, extension 2.3, decision 0010, which the privacy module opens): the
   * member's row locked (and every approved admin's first, for the last-admin rule) and returned as it is now; 404
   * for nobody, 409 for the last approved admin or one already erased.
   */
  async lockForErasure(tx: DbOrTx, id: string): Promise<UserRow> {
    const { member, approvedAdminIds } = await this.repository.lockForChange(tx, id, {
      approvedAdmins: true,
    });
    if (!member) throw notFound('User not found');
    if (member.status === 'erased') throw conflict('The member is already erased');
    if (approvedAdminIds.includes(id) && approvedAdminIds.length <= 1)
      throw conflict('The last approved admin cannot be erased');
    return member;
  }

  /**
   * In the caller's transaction, after `lockForErasure` (and the other modules' values): off the rolls after today
   * (their open stretch ends at the next midnight), then the row pseudonymised: `Former member <6>`, no email (a
   * placeholder that names nobody, so the address is free), phone, college id, room, identity-provider subject,
   * password or notice; `erased`, every token ended; and one `user`/`erased` audit row in the member's mess with no
   * personal value. `announceErased` after the commit.
   */
  async eraseWithin(tx: DbOrTx, caller: CurrentMember, member: UserRow): Promise<UserRow> {
    const id = member.id;
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
  }

  /** After an erasure committed: their tokens are read again on every replica and the bills forget them
   * (`member.changed`). */
  announceErased(caller: CurrentMember, erased: UserRow): void {
    this.logger.log({ by: caller.id, userId: erased.id }, 'Member erased');
    memberUpdated(this.events, erased);
    memberChanged(this.events, erased, 'erased', caller.id);
  }

  /** In the caller's transaction (a move's, memberships'): locks these members' rows, in id order, as they are now. */
  lockMembers(tx: DbOrTx, ids: readonly string[]): Promise<UserRow[]> {
    return this.repository.lockMany(tx, [...ids]);
  }

  /** In the caller's transaction: how many approved members each of these messes has now. */
  approvedIn(tx: DbOrTx, messIds: readonly string[]): Promise<ReadonlyMap<string, number>> {
    return this.repository.approvedIn([...messIds], tx);
  }

  /**
   * In the caller's transaction (a move's, extension 2.2, which memberships opens and has locked the messes and
   * these members in): each member into their new mess, a few statements per mess however many members. From now
   * on the members act in the new mess; what they did in the old one stays there. Each move goes into the audit
   * trail of the mess joined (what PastMesses reads); an approved member leaves the old mess's rolls and joins the
   * new one's today. `targets`: the messes of the move, in id order. Returns the members moved, as they are now,
   * and where they came from; `announceMoved` after the commit.
   */
  async moveWithin(
    tx: DbOrTx,
    caller: CurrentMember,
    movers: readonly { member: UserRow; to: string }[],
    targets: readonly string[],
  ): Promise<MovedMember[]> {
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
    return movers.map(({ member }) => ({ member: after.get(member.id)!, fromMessId: member.messId }));
  }

  /** After a move committed: each member's line in the log, and the changes published (the rolls of both messes). */
  announceMoved(caller: CurrentMember, moved: readonly MovedMember[]): void {
    for (const { member, fromMessId } of moved) {
      this.logger.log(
        { by: caller.id, userId: member.id, from: fromMessId, to: member.messId },
        'Member moved',
      );
      memberUpdated(this.events, member);
      // The rolls of both messes changed (the daily rate's bills).
      if (member.status === 'approved') memberChanged(this.events, member, 'moved', caller.id);
    }
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
        const mess = await this.directory.lock(tx, messId);
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
          throw conflict(messIsFull(names, messId));
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
      const mess = messOfMember ? await this.directory.lock(tx, messOfMember) : undefined;
      const { member, approvedAdminIds } = await this.repository.lockForChange(tx, id, {
        approvedAdmins: mayRemoveAnAdmin,
      });
      // An erased member is kept for the books only: nobody changes them any more.
      if (!member || member.status === 'erased') throw notFound('User not found');
      if (mess && member.status !== 'approved') {
        if (member.messId !== mess.id) throw conflict('The member was moved meanwhile; try again');
        if (mess.capacity !== null && (await this.repository.countApprovedIn(mess.id, tx)) >= mess.capacity)
          throw conflict(messIsFull(names!, mess.id));
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
