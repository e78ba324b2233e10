import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { type CurrentMember } from '../../common/auth/auth.decorators';
import { conflict, notFound } from '../../common/errors/api-error';
import { DomainEventBus } from '../../common/events/domain-event-bus';
import { Clock } from '../../common/time/clock';
import { localParts, zonedInstant } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import { MembershipsService } from '../memberships';
import { MessDirectory, type MessLabel } from '../messes';
import type { DbOrTx } from '../../database/database';
import { UsersService, type UserRow } from '../users';
import { runLottery } from './lottery';
import { ALREADY_CLOSED, CANCELLED, NOT_ALLOCATED, NOT_YET_OPEN, WINDOW_NOT_FOUND } from './mess-windows';
import { auditView, MessWindowsService } from './mess-windows.service';
import { TermsRepository } from './terms.repository';
import type { MessWindowAllocationRow, MessWindowRow, MoveOutcome } from './terms.schema';

/** `byMess` of the summary: each mess of the window, its seats at the start (null: unlimited), who got it. */
export interface AllocationSummary {
  members: number;
  placed: number;
  firstChoice: number;
  unplaced: number;
  byMess: { messId: string; seats: number | null; placed: number }[];
}

/**
 * The close of a term window (the lottery, once) and its moves on `effectiveFrom` (each once), whoever runs them:
 * an admin's `POST …/close`, or the scheduler on any replica, also late after downtime.
 */
@Injectable()
export class AllocationService {
  private readonly logger = new Logger('MessWindows');

  constructor(
    private readonly repository: TermsRepository,
    private readonly windows: MessWindowsService,
    private readonly directory: MessDirectory,
    private readonly users: UsersService,
    private readonly memberships: MembershipsService,
    private readonly events: DomainEventBus,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  /** `POST …/close`: closes the window now and allocates it (and moves, when `effectiveFrom` has come). */
  async closeNow(caller: CurrentMember, id: string): Promise<MessWindowRow> {
    const window = await this.repository.findWindow(id);
    if (!window) throw notFound(WINDOW_NOT_FOUND);
    if (window.cancelledAt) throw conflict(CANCELLED);
    if (window.allocatedAt) throw conflict(ALREADY_CLOSED);
    if (this.clock.now() <= window.opensAt) throw conflict(NOT_YET_OPEN);
    const allocated = await this.allocate(id, caller.id);
    if (!allocated) throw conflict(ALREADY_CLOSED);
    await this.applyIfDue(allocated);
    return (await this.repository.findWindow(id))!;
  }

  /**
   * Runs the lottery of the window once: under the window's row lock (a second caller waits, then finds it
   * allocated and returns undefined), with the rows of its messes locked so approvals and moves into them wait for
   * the seats to be counted. Writes the allocation, the seed, a `closed` audit row in each mess and the promise to
   * tell each member their result (MESS_ALLOCATED: one durable event per mess they were in at the close, in the
   * outbox) in one transaction, run again whole after a deadlock or a serialisation failure.
   */
  async allocate(id: string, actorId: string | null): Promise<MessWindowRow | undefined> {
    const now = this.clock.now();
    // Read before the transaction (a read on another connection inside it could wait for it: architecture.md).
    const labels = await this.directory.labels();
    const done = await this.repository.transaction(async (tx) => {
      const window = await this.repository.lockWindow(id, tx);
      if (!window || window.allocatedAt || window.cancelledAt) return undefined;
      const messRows = [];
      for (const messId of [...window.messIds].sort())
        messRows.push((await this.directory.lock(tx, messId))!);
      const approved = await this.users.approvedPerMess(tx);
      const choices = await this.repository.choicesOf(id, tx);
      // Members still approved at the close, from the mess they are in now.
      const members = new Map(
        (
          await this.users.findByIds(
            choices.map((c) => c.userId),
            tx,
          )
        )
          .filter((m) => m.status === 'approved')
          .map((m) => [m.id, m]),
      );
      const preferencesOf = new Map(choices.map((c) => [c.userId, c.preferences]));
      const seed = randomBytes(16).toString('hex');
      const lottery = runLottery(
        seed,
        messRows.map((m) => ({ id: m.id, capacity: m.capacity, approved: approved.get(m.id) ?? 0 })),
        choices
          .filter((c) => members.has(c.userId))
          .map((c) => ({
            userId: c.userId,
            fromMessId: members.get(c.userId)!.messId,
            preferences: c.preferences,
          })),
      );
      await this.repository.insertAllocation(
        id,
        lottery.lines.map((line) => ({
          userId: line.userId,
          position: line.position,
          hash: line.hash,
          fromMessId: line.from,
          toMessId: line.to,
          rank: line.rank,
          preferences: preferencesOf.get(line.userId)!,
        })),
        tx,
      );
      const after = (await this.repository.updateWindow(
        id,
        {
          seed,
          seats: Object.fromEntries(lottery.seats),
          allocatedAt: now,
          closesAt: window.closesAt < now ? window.closesAt : now,
        },
        tx,
      ))!;
      const summary = summarise(lottery.lines, after.messIds, lottery.seats);
      await this.windows.auditInEachMess(tx, after, actorId, 'closed', auditView(window), {
        ...auditView(after),
        members: summary.members,
        placed: summary.placed,
        unplaced: summary.unplaced,
      });
      await this.announce(tx, after, lottery.lines, labels);
      return { window: after, lines: lottery.lines, members };
    });
    if (!done) return undefined;
    this.logger.log({ windowId: id, members: done.lines.length }, 'Term window allocated');
    return done.window;
  }

  /** MESS_ALLOCATED to each member, through one durable event per mess they were in at the close, written in `tx`. */
  private async announce(
    tx: DbOrTx,
    window: MessWindowRow,
    lines: { userId: string; position: number; from: string; to: string | null; rank: number | null }[],
    labels: ReadonlyMap<string, MessLabel>,
  ): Promise<void> {
    const byMess = new Map<string, typeof lines>();
    for (const line of lines) {
      const ofMess = byMess.get(line.from);
      if (ofMess) ofMess.push(line);
      else byMess.set(line.from, [line]);
    }
    for (const [messId, ofMess] of byMess) {
      await this.events.publishWithin(tx, 'mess-window.allocated', {
        messId,
        windowId: window.id,
        term: window.term,
        effectiveFrom: window.effectiveFrom,
        seed: window.seed!,
        results: ofMess.map((line) => {
          const to = line.to === null ? null : labels.get(line.to);
          return {
            userId: line.userId,
            position: line.position,
            members: lines.length,
            to: to ? { slug: to.slug, messName: to.messName } : null,
            stays: line.to === line.from,
            rank: line.rank,
          };
        }),
      });
    }
  }

  /** Makes the window's moves when its `effectiveFrom` has begun (mess time zone); otherwise nothing. */
  async applyIfDue(window: MessWindowRow): Promise<number> {
    const start = zonedInstant(window.effectiveFrom, '00:00', this.config.messTimezone);
    if (this.clock.now() < start) return 0;
    return this.apply(window);
  }

  /**
   * The moves, made as `PUT /users/:id/mess` makes them (memberships' `lockForMove` and `moveWithin`), in
   * batches of MOVE_BATCH lines in the order of the draw, each in one transaction where the lines' outcomes are
   * recorded once: under the locks of the batch's messes and members, only the lines with no outcome yet are made
   * (a second replica's batch waits for the first's locks, then finds them recorded and skips them). Within a batch
   * the lines are taken one by one in the order of the draw against the members each mess has at that point: a
   * member moved by hand since the close is moved only if still in their `from` mess (else `moved-by-hand`); one no
   * longer approved stays (`left`); one whose new mess is full at their turn stays (`full`). (The moves into a mess
   * are then never more than the lottery's at that point of the draw, and the moves out of it at least as many, so
   * none is refused for want of a seat the lottery counted.)
   */
  async apply(window: MessWindowRow): Promise<number> {
    const actor = await this.actorFor(window);
    await this.repository.claimStays(window.id, this.clock.now());
    const lines = await this.repository.pendingMoves(window.id);
    let moved = 0;
    for (let i = 0; i < lines.length; i += MOVE_BATCH)
      moved += await this.applyLines(window, lines.slice(i, i + MOVE_BATCH), actor);
    if (await this.repository.markApplied(window.id, this.clock.now()))
      this.logger.log({ windowId: window.id, moved }, 'Term window applied');
    return moved;
  }

  /** One batch of lines (in the order of the draw) in one transaction; how many members it moved. */
  private async applyLines(
    window: MessWindowRow,
    lines: readonly MessWindowAllocationRow[],
    actor: CurrentMember,
  ): Promise<number> {
    const moves = lines.map((line) => ({ userId: line.userId, messId: line.toMessId! }));
    // This module's transaction: the move's locks, then the lines' outcomes decided and recorded here under them,
    // then the moves chosen made by memberships (the users' rows, the leave they end), all or nothing.
    const made = await this.repository.transaction(async (tx) => {
      const locked = await this.memberships.lockForMove(tx, moves);
      const { members, messes, approvedIn } = locked;
      const open = new Set(
        await this.repository.lockOpenLines(
          window.id,
          lines.map((l) => l.userId),
          tx,
        ),
      );
      const byId = new Map(members.map((m) => [m.id, m]));
      const there = new Map(approvedIn);
      const outcomes: { userId: string; outcome: MoveOutcome }[] = [];
      const chosen: { userId: string; messId: string }[] = [];
      for (const line of lines) {
        if (!open.has(line.userId)) continue; // made by another replica
        const to = line.toMessId!;
        const member = byId.get(line.userId);
        let outcome: MoveOutcome;
        if (!member || member.status === 'erased') outcome = 'left';
        else if (member.messId !== line.fromMessId) outcome = 'moved-by-hand';
        else if (member.status !== 'approved') outcome = 'left';
        else {
          const capacity = messes.get(to)?.capacity ?? null;
          const n = there.get(to) ?? 0;
          if (capacity !== null && n >= capacity) outcome = 'full';
          else {
            outcome = 'moved';
            there.set(to, n + 1);
            const left = there.get(line.fromMessId);
            if (left !== undefined) there.set(line.fromMessId, left - 1);
            chosen.push({ userId: line.userId, messId: to });
          }
        }
        outcomes.push({ userId: line.userId, outcome });
      }
      await this.repository.recordOutcomes(window.id, outcomes, this.clock.now(), tx);
      return this.memberships.moveWithin(tx, actor, locked, chosen);
    });
    this.memberships.announceMoved(actor, made);
    return made.moved.length;
  }

  /** Who the moves are made by in the trail: the admin who opened the window, or else an approved admin. */
  private async actorFor(window: MessWindowRow): Promise<CurrentMember> {
    const creator: UserRow | undefined = window.createdBy
      ? await this.users.findById(window.createdBy)
      : undefined;
    const member = creator ?? (await this.users.findApprovedByRoles(['admin']))[0];
    return {
      id: member.id,
      email: member.email,
      fullName: member.fullName,
      role: member.role,
      status: member.status,
      messId: member.messId,
      tokenId: '',
      tokenExpiresAt: new Date(0),
    };
  }

  /** The scheduler's tick: allocates every window whose close has come, then moves every one whose term began. */
  async runDue(): Promise<{ allocated: number; moved: number }> {
    const now = this.clock.now();
    let allocated = 0;
    for (const window of await this.repository.dueToAllocate(now)) {
      if (await this.allocate(window.id, null)) allocated += 1;
    }
    let moved = 0;
    const today = localParts(now, this.config.messTimezone).date;
    for (const window of await this.repository.dueToApply(today)) moved += await this.applyIfDue(window);
    return { allocated, moved };
  }

  /** The allocation of a window: every line (the office), or the caller's own. */
  async allocation(
    id: string,
    userId?: string,
  ): Promise<{ window: MessWindowRow; lines: MessWindowAllocationRow[]; summary: AllocationSummary }> {
    const window = await this.repository.findWindow(id);
    if (!window) throw notFound(WINDOW_NOT_FOUND);
    if (!window.allocatedAt) throw conflict(NOT_ALLOCATED);
    const all = await this.repository.allocation(id);
    const summary = summarise(
      all.map((l) => ({ to: l.toMessId, rank: l.rank })),
      window.messIds,
      new Map(Object.entries(window.seats ?? {})),
    );
    return { window, lines: userId === undefined ? all : all.filter((l) => l.userId === userId), summary };
  }
}

/** How many lines of a window are moved in one transaction (its messes and members locked meanwhile). */
const MOVE_BATCH = 5_000;

/** The summary of an allocation (the spec's `summary`), from its lines and the seats at the start. */
export function summarise(
  lines: readonly { to: string | null; rank: number | null }[],
  messIds: readonly string[],
  seats: ReadonlyMap<string, number | null>,
): AllocationSummary {
  const placed = lines.filter((l) => l.to !== null).length;
  return {
    members: lines.length,
    placed,
    firstChoice: lines.filter((l) => l.rank === 1).length,
    unplaced: lines.length - placed,
    byMess: messIds.map((messId) => ({
      messId,
      seats: seats.get(messId) ?? null,
      placed: lines.filter((l) => l.to === messId).length,
    })),
  };
}
