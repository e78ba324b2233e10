import { databaseErrorCode } from '../common/errors/database-errors';
import type { Db, DbOrTx } from './database';

/** SQLSTATEs after which the whole transaction is tried again: a deadlock, a serialisation failure. */
const RETRIED = new Set(['40P01', '40001']);

/** How many times a transaction is tried in all before its deadlock or serialisation failure is the caller's. */
export const TRANSACTION_ATTEMPTS = 3;

/** What each open transaction (of `inTransaction`) runs once it has committed: nothing when it rolls back. */
const committed = new WeakMap<object, (() => void)[]>();

/**
 * Runs `work` in one transaction, and the whole of it again (a new transaction, after a short random wait) when the
 * database ends it with a deadlock (40P01) or a serialisation failure (40001), up to TRANSACTION_ATTEMPTS in all.
 * `work` may therefore run more than once: it must do nothing outside `tx` that cannot be done twice (what must be
 * done once after the change, such as telling members, is written with it: `DomainEventBus.publishWithin`).
 * Callbacks given to `afterCommit(tx, …)` run once, after the attempt that committed.
 */
export async function inTransaction<T>(db: Db, work: (tx: DbOrTx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const after: (() => void)[] = [];
    try {
      const result = await db.transaction((tx) => {
        committed.set(tx, after);
        return work(tx);
      });
      for (const callback of after) callback();
      return result;
    } catch (error) {
      if (attempt >= TRANSACTION_ATTEMPTS || !isRetriedConflict(error)) throw error;
      // Jitter, so the two sides of a deadlock do not meet again at once: 10–60 ms, then 20–120 ms.
      await new Promise((resolve) => setTimeout(resolve, attempt * (10 + Math.random() * 50)));
    }
  }
}

/** Whether the error is a deadlock or a serialisation failure (under any driver or Drizzle wrapper). */
export function isRetriedConflict(error: unknown): boolean {
  const code = databaseErrorCode(error);
  return code !== undefined && RETRIED.has(code);
}

/**
 * Runs `callback` once the transaction `tx` (opened by `inTransaction`) has committed; never if it rolls back or
 * is tried again. Returns false, running nothing, for a transaction not opened by `inTransaction`.
 */
export function afterCommit(tx: DbOrTx, callback: () => void): boolean {
  const list = committed.get(tx);
  if (!list) return false;
  list.push(callback);
  return true;
}
