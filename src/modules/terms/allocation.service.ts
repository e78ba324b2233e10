import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { type CurrentMember } from '../../common/auth/auth.decorators';
import { ApiError, conflict, notFound } from '../../common/errors/api-error';
import { DomainEventBus } from '../../common/events/domain-event-bus';
import { Clock } from '../../common/time/clock';
import { localParts, zonedInstant } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import { MembershipsService } from '../memberships';
import { MessDirectory, MessesRepository } from '../messes';
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

/** Thrown inside a move's transaction to undo it and record why the line was not moved. */
class Skip extends Error {
  constructor(readonly outcome: MoveOutcome | 'already') {
    super(outcome);
  }
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
    private readonly messes: MessesRepository,
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
   * the seats to be counted. Writes the allocation, the seed and a `closed` audit row in each mess, then tells each
   * member their result (MESS_ALLOCATED, through the event of their mess).
   */
  async allocate(id: string, actorId: string | null): Promise<MessWindowRow | undefined> {
    const now = this.clock.now();
    const done = await this.repository.transaction(async (tx) => {
      const window = await this.repository.lockWindow(id, tx);
      if (!window || window.allocatedAt || window.cancelledAt) return undefined;
      const messRows = [];
      for (const messId of [...window.messIds].sort()) messRows.push((await this.messes.lock(messId, tx))!);
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
        lottery.lines.map((line) => ({
          windowId: id,
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
      return { window: after, lines: lottery.lines, members };
    });
    if (!done) return undefined;
    this.logger.log({ windowId: id, members: done.lines.length }, 'Term window allocated');
    await this.announce(done.window, done.lines);
    return done.window;
  }

  /** MESS_ALLOCATED to each member, through one event per mess they were in at the close. */
  private async announce(
    window: MessWindowRow,
    lines: { userId: string; position: number; from: string; to: string | null; rank: number | null }[],
  ): Promise<void> {
    const labels = await this.directory.labels();
    const byMess = new Map<string, typeof lines>();
    for (const line of lines) {
      const ofMess = byMess.get(line.from);
      if (ofMess) ofMess.push(line);
      else byMess.set(line.from, [line]);
    }
    for (const [messId, ofMess] of byMess) {
      this.events.publish('mess-window.allocated', {
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
   * The moves, each as `PUT /users/:id/mess` makes it and in its transaction, where the line's outcome is recorded
   * once (`claimLine`): a second replica's move of the same member waits for the first's locks, then finds the line
   * recorded and undoes itself. A member moved by hand since the close is moved only if still in their `from`
   * mess; one no longer approved stays (`left`); one whose new mess filled up meanwhile stays (`full`).
   *
   * The order keeps the lottery's seats: a move that fits in its mess's seats at the start (among the first `seats`
   * members the draw sent there) needs nobody to leave first, so those are made MOVE_CONCURRENCY at a time; the
   * others (a seat someone left) after them, one by one in the order of the draw, when every move before theirs in
   * the draw is made. (The moves into a mess are then never more than the lottery's at that point of the draw, and
   * the moves out of it at least as many, so none is refused for want of a seat the lottery counted.)
   */
  async apply(window: MessWindowRow): Promise<number> {
    const actor = await this.actorFor(window);
    await this.repository.claimStays(window.id, this.clock.now());
    const { first, after } = splitBySeats(await this.repository.allocation(window.id), window.seats ?? {});
    let moved = 0;
    const count = (outcome: MoveOutcome | 'already') => {
      if (outcome === 'moved') moved += 1;
    };
    const queue = first.filter((line) => line.outcome === null);
    await Promise.all(
      Array.from({ length: MOVE_CONCURRENCY }, async () => {
        for (let line = queue.shift(); line; line = queue.shift())
          count(await this.applyLine(window, line, actor));
      }),
    );
    for (const line of after.filter((l) => l.outcome === null))
      count(await this.applyLine(window, line, actor));
    if (await this.repository.markApplied(window.id, this.clock.now()))
      this.logger.log({ windowId: window.id, moved }, 'Term window applied');
    return moved;
  }

  private async applyLine(
    window: MessWindowRow,
    line: MessWindowAllocationRow,
    actor: CurrentMember,
  ): Promise<MoveOutcome | 'already'> {
    try {
      await this.memberships.move(actor, [line.userId], line.toMessId!, {
        within: async (tx, movers) => {
          if (!(await this.repository.claimLine(window.id, line.userId, 'moved', this.clock.now(), tx)))
            throw new Skip('already');
          const mover = movers[0];
          if (!mover) throw new Skip('moved-by-hand'); // already in the new mess
          if (mover.fromMessId !== line.fromMessId) throw new Skip('moved-by-hand');
          if (mover.member.status !== 'approved') throw new Skip('left');
        },
      });
      return 'moved';
    } catch (error) {
      let outcome: MoveOutcome | 'already';
      if (error instanceof Skip) outcome = error.outcome;
      else if (error instanceof ApiError && error.getStatus() === 409) outcome = 'full';
      else if (error instanceof ApiError && error.getStatus() === 404) outcome = 'left';
      else throw error;
      if (outcome === 'already') return outcome;
      return (await this.repository.claimLine(window.id, line.userId, outcome, this.clock.now()))
        ? outcome
        : 'already';
    }
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

/** How many moves of a window are made at once when none needs a seat someone else leaves. */
const MOVE_CONCURRENCY = 8;

/**
 * The lines that move (all of them, in the order of the draw) split in two: `first`, the moves among the first
 * `seats` members the draw sent to their mess (no limit: all), which fit whatever else moves; `after`, the rest,
 * which take a seat a member drawn before them left.
 */
export function splitBySeats<T extends { toMessId: string | null; fromMessId: string }>(
  lines: readonly T[],
  seats: Readonly<Record<string, number | null>>,
): { first: T[]; after: T[] } {
  const arrivals = new Map<string, number>();
  const first: T[] = [];
  const after: T[] = [];
  for (const line of lines) {
    if (line.toMessId === null || line.toMessId === line.fromMessId) continue;
    const n = (arrivals.get(line.toMessId) ?? 0) + 1;
    arrivals.set(line.toMessId, n);
    const limit = seats[line.toMessId];
    (limit === null || limit === undefined || n <= limit ? first : after).push(line);
  }
  return { first, after };
}

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
