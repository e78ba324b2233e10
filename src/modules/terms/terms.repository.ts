import { Injectable } from '@nestjs/common';
import { and, asc, desc, eq, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import { HttpStatus } from '@nestjs/common';
import { describeConstraint } from '../../common/errors/database-errors';
import { Database, type DbOrTx } from '../../database/database';
import { inTransaction } from '../../database/transactions';
import { isAnyUuid, textArray, uuidArray } from '../../database/sql-arrays';
import {
  messWindowAllocations,
  messWindowChoices,
  messWindows,
  type MessWindowAllocationRow,
  type MessWindowChoiceRow,
  type MessWindowRow,
  type MoveOutcome,
} from './terms.schema';

export const TERM_TAKEN = 'A window for this term exists';
describeConstraint('mess_windows_term_unique', HttpStatus.CONFLICT, TERM_TAKEN);

export type NewMessWindow = typeof messWindows.$inferInsert;
export type NewAllocationLine = typeof messWindowAllocations.$inferInsert;

/** The only code that queries the term windows' tables. */
@Injectable()
export class TermsRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  /** One transaction, run again whole after a deadlock or a serialisation failure (`inTransaction`). */
  transaction<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
    return inTransaction(this.db, work);
  }

  async insertWindow(values: NewMessWindow, db: DbOrTx = this.db): Promise<MessWindowRow> {
    const [row] = await db.insert(messWindows).values(values).returning();
    return row;
  }

  async findWindow(id: string, db: DbOrTx = this.db): Promise<MessWindowRow | undefined> {
    const [row] = await db.select().from(messWindows).where(eq(messWindows.id, id));
    return row;
  }

  /** Holds the window's row until the caller's transaction ends: its close, cancel and apply take turns. */
  async lockWindow(id: string, tx: DbOrTx): Promise<MessWindowRow | undefined> {
    const [row] = await tx.select().from(messWindows).where(eq(messWindows.id, id)).for('update');
    return row;
  }

  /** Every window, newest first (a deployment has a few a year). */
  listWindows(): Promise<MessWindowRow[]> {
    return this.db.select().from(messWindows).orderBy(desc(messWindows.createdAt), desc(messWindows.id));
  }

  async updateWindow(
    id: string,
    values: Partial<NewMessWindow>,
    db: DbOrTx = this.db,
  ): Promise<MessWindowRow | undefined> {
    const [row] = await db.update(messWindows).set(values).where(eq(messWindows.id, id)).returning();
    return row;
  }

  /** Windows whose close has come and that are not allocated yet (nor cancelled). */
  dueToAllocate(now: Date): Promise<MessWindowRow[]> {
    return this.db
      .select()
      .from(messWindows)
      .where(
        and(isNull(messWindows.allocatedAt), isNull(messWindows.cancelledAt), lte(messWindows.closesAt, now)),
      )
      .orderBy(asc(messWindows.closesAt));
  }

  /** Windows allocated whose moves are not all made, with `effectiveFrom` on or before `today`. */
  dueToApply(today: string): Promise<MessWindowRow[]> {
    return this.db
      .select()
      .from(messWindows)
      .where(
        and(
          isNotNull(messWindows.allocatedAt),
          isNull(messWindows.appliedAt),
          isNull(messWindows.cancelledAt),
          lte(messWindows.effectiveFrom, today),
        ),
      )
      .orderBy(asc(messWindows.closesAt));
  }

  /** Saves a member's choice over any earlier one, in one statement (the key, not a check, keeps one per member). */
  async saveChoice(
    windowId: string,
    userId: string,
    preferences: string[],
    at: Date,
  ): Promise<MessWindowChoiceRow> {
    const [row] = await this.db
      .insert(messWindowChoices)
      .values({ windowId, userId, preferences, updatedAt: at })
      .onConflictDoUpdate({
        target: [messWindowChoices.windowId, messWindowChoices.userId],
        set: { preferences, updatedAt: at },
      })
      .returning();
    return row;
  }

  async findChoice(windowId: string, userId: string): Promise<MessWindowChoiceRow | undefined> {
    const [row] = await this.db
      .select()
      .from(messWindowChoices)
      .where(and(eq(messWindowChoices.windowId, windowId), eq(messWindowChoices.userId, userId)));
    return row;
  }

  /** Whether there was one to delete. */
  async deleteChoice(windowId: string, userId: string): Promise<boolean> {
    const rows = await this.db
      .delete(messWindowChoices)
      .where(and(eq(messWindowChoices.windowId, windowId), eq(messWindowChoices.userId, userId)))
      .returning({ userId: messWindowChoices.userId });
    return rows.length > 0;
  }

  /** A member's choices in every window, with the window's term and their allocation line (the data export). */
  memberChoices(
    userId: string,
  ): Promise<{ choice: MessWindowChoiceRow; term: string; line: MessWindowAllocationRow | null }[]> {
    return this.db
      .select({ choice: messWindowChoices, term: messWindows.term, line: messWindowAllocations })
      .from(messWindowChoices)
      .innerJoin(messWindows, eq(messWindows.id, messWindowChoices.windowId))
      .leftJoin(
        messWindowAllocations,
        and(
          eq(messWindowAllocations.windowId, messWindowChoices.windowId),
          eq(messWindowAllocations.userId, messWindowChoices.userId),
        ),
      )
      .where(eq(messWindowChoices.userId, userId))
      .orderBy(asc(messWindows.opensAt));
  }

  choicesOf(windowId: string, tx: DbOrTx): Promise<MessWindowChoiceRow[]> {
    return tx.select().from(messWindowChoices).where(eq(messWindowChoices.windowId, windowId));
  }

  /** The lines of one window, in one statement (a column an array: 8 parameters however many lines). */
  async insertAllocation(
    windowId: string,
    lines: Omit<NewAllocationLine, 'windowId'>[],
    tx: DbOrTx,
  ): Promise<void> {
    if (!lines.length) return;
    const ints = (values: (number | null | undefined)[]) =>
      sql`${textArray(values.map((v) => (v == null ? null : String(v))))}::int[]`;
    await tx.execute(sql`
      insert into ${messWindowAllocations}
        (window_id, user_id, position, hash, from_mess_id, to_mess_id, rank, preferences)
      select ${windowId}::uuid, l.user_id, l.position, l.hash, l.from_mess_id, l.to_mess_id, l.rank, l.preferences::jsonb
        from unnest(
          ${uuidArray(lines.map((l) => l.userId))},
          ${ints(lines.map((l) => l.position))},
          ${textArray(lines.map((l) => l.hash))},
          ${uuidArray(lines.map((l) => l.fromMessId))},
          ${textArray(
            lines.map((l) => l.toMessId ?? null),
            'uuid',
          )},
          ${ints(lines.map((l) => l.rank))},
          ${textArray(lines.map((l) => JSON.stringify(l.preferences)))}
        ) as l(user_id, position, hash, from_mess_id, to_mess_id, rank, preferences)`);
  }

  /** The allocation in the order of the draw; `userId`: that member's line only. */
  allocation(windowId: string, userId?: string): Promise<MessWindowAllocationRow[]> {
    return this.db
      .select()
      .from(messWindowAllocations)
      .where(
        and(
          eq(messWindowAllocations.windowId, windowId),
          userId === undefined ? undefined : eq(messWindowAllocations.userId, userId),
        ),
      )
      .orderBy(asc(messWindowAllocations.position));
  }

  /** The lines with no outcome yet whose member moves (to another mess), in the order of the draw. */
  pendingMoves(windowId: string): Promise<MessWindowAllocationRow[]> {
    return this.db
      .select()
      .from(messWindowAllocations)
      .where(
        and(
          eq(messWindowAllocations.windowId, windowId),
          isNull(messWindowAllocations.outcome),
          sql`${messWindowAllocations.toMessId} <> ${messWindowAllocations.fromMessId}`,
        ),
      )
      .orderBy(asc(messWindowAllocations.position));
  }

  /**
   * Locks these members' lines of the window that have no outcome yet, until `tx` ends, and returns their members:
   * a second caller waits, then finds them recorded (what makes each move happen once).
   */
  async lockOpenLines(windowId: string, userIds: readonly string[], tx: DbOrTx): Promise<string[]> {
    if (!userIds.length) return [];
    const rows = await tx
      .select({ userId: messWindowAllocations.userId })
      .from(messWindowAllocations)
      .where(
        and(
          eq(messWindowAllocations.windowId, windowId),
          isAnyUuid(messWindowAllocations.userId, userIds),
          isNull(messWindowAllocations.outcome),
        ),
      )
      .orderBy(asc(messWindowAllocations.userId))
      .for('update');
    return rows.map((r) => r.userId);
  }

  /** Records the outcomes of lines that have none yet, in one statement, in `tx` (the moves' transaction). */
  async recordOutcomes(
    windowId: string,
    outcomes: readonly { userId: string; outcome: MoveOutcome }[],
    at: Date,
    tx: DbOrTx,
  ): Promise<void> {
    if (!outcomes.length) return;
    await tx.execute(sql`
      update ${messWindowAllocations}
         set outcome = o.outcome, applied_at = ${at.toISOString()}::timestamptz
        from unnest(${uuidArray(outcomes.map((o) => o.userId))}, ${textArray(outcomes.map((o) => o.outcome))})
             as o(user_id, outcome)
       where ${messWindowAllocations.windowId} = ${windowId}
         and ${messWindowAllocations.userId} = o.user_id
         and ${messWindowAllocations.outcome} is null`);
  }

  /** Records `stayed` for every line whose member keeps their mess (no `to`, or their own), not yet recorded. */
  async claimStays(windowId: string, at: Date): Promise<void> {
    await this.db
      .update(messWindowAllocations)
      .set({ outcome: 'stayed', appliedAt: at })
      .where(
        and(
          eq(messWindowAllocations.windowId, windowId),
          isNull(messWindowAllocations.outcome),
          sql`(${messWindowAllocations.toMessId} is null or ${messWindowAllocations.toMessId} = ${messWindowAllocations.fromMessId})`,
        ),
      );
  }

  /** Marks the window applied once every line has its outcome; true when this call did. */
  async markApplied(windowId: string, at: Date): Promise<boolean> {
    const rows = await this.db
      .update(messWindows)
      .set({ appliedAt: at })
      .where(
        and(
          eq(messWindows.id, windowId),
          isNull(messWindows.appliedAt),
          isNull(messWindows.cancelledAt),
          sql`not exists (select 1 from ${messWindowAllocations} where ${messWindowAllocations.windowId} = ${windowId} and ${messWindowAllocations.outcome} is null)`,
        ),
      )
      .returning({ id: messWindows.id });
    return rows.length > 0;
  }
}
