import { createHash } from 'node:crypto';

/** A mess of the window as the lottery sees it at the close. */
export interface LotteryMess {
  id: string;
  /** Approved members at most; null: no limit. */
  capacity: number | null;
  /** Its approved members at the close, the choosers among them included. */
  approved: number;
}

/** A member with a choice, as they are at the close. */
export interface LotteryChooser {
  userId: string;
  /** The mess they belong to at the close. */
  fromMessId: string;
  /** Messes of the window, best first (distinct). */
  preferences: readonly string[];
}

/** One member's result, in the order of the draw. */
export interface LotteryLine {
  userId: string;
  /** 1-based place in the draw. */
  position: number;
  /** The lowercase hex SHA-256 of `seed:userId` that placed them. */
  hash: string;
  from: string;
  /** The mess they get (their own included); null: none of their preferences, they stay. */
  to: string | null;
  /** The 1-based position of `to` in their preferences; null with `to`. */
  rank: number | null;
}

export interface LotteryResult {
  lines: LotteryLine[];
  /** Seats of each mess of the window at the start (null: unlimited), by mess id. */
  seats: Map<string, number | null>;
}

/** The key a member is drawn by: the lowercase hex SHA-256 of `seed + ':' + userId`. */
export const drawKey = (seed: string, userId: string): string =>
  createHash('sha256').update(`${seed}:${userId}`).digest('hex');

/** The members in the order of the draw: by `drawKey` ascending (then by id, were two keys ever equal). */
export function drawOrder(seed: string, userIds: readonly string[]): { userId: string; hash: string }[] {
  return userIds
    .map((userId) => ({ userId, hash: drawKey(seed, userId) }))
    .sort((a, b) =>
      a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0,
    );
}

/**
 * The term's lottery (extension 2.3, "Choosing a mess for a term"), a pure function of the seed, the messes and the
 * choices, so anyone with the published seed can recompute it:
 * - seats of a mess at the start: its capacity less all its approved members (choosers included), never below 0;
 *   unlimited when the capacity is null;
 * - in the order of the draw, each member gets the first of their preferences that is their own mess (no seat
 *   taken) or has a seat left (one taken there, and their own mess, if it is one of the window's, gets one back for
 *   the members after them); none: they stay (`to` and `rank` null).
 *
 * A mess above its capacity at the start (its capacity lowered below its members) shows 0 seats and gets seats
 * back only once as many members have left it as it had too many, so no mess ends above its capacity.
 */
export function runLottery(
  seed: string,
  messes: readonly LotteryMess[],
  choosers: readonly LotteryChooser[],
): LotteryResult {
  // Seats left, possibly below zero for a mess above its capacity (shown as 0 at the start); null: unlimited.
  const left = new Map<string, number | null>(
    messes.map((m) => [m.id, m.capacity === null ? null : m.capacity - m.approved]),
  );
  const seats = new Map<string, number | null>(
    [...left].map(([id, n]) => [id, n === null ? null : Math.max(0, n)]),
  );
  const byUser = new Map(choosers.map((c) => [c.userId, c]));
  const lines = drawOrder(
    seed,
    choosers.map((c) => c.userId),
  ).map(({ userId, hash }, index): LotteryLine => {
    const chooser = byUser.get(userId)!;
    const from = chooser.fromMessId;
    const found = chooser.preferences.findIndex((messId) => {
      if (messId === from) return true;
      const n = left.get(messId);
      return n === null || (n !== undefined && n > 0);
    });
    const to = found < 0 ? null : chooser.preferences[found];
    if (to !== null && to !== from) {
      const there = left.get(to);
      if (there !== null && there !== undefined) left.set(to, there - 1);
      const home = left.get(from);
      if (home !== null && home !== undefined) left.set(from, home + 1);
    }
    return { userId, position: index + 1, hash, from, to, rank: found < 0 ? null : found + 1 };
  });
  return { lines, seats };
}
