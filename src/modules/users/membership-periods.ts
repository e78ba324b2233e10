import { Injectable } from '@nestjs/common';
import { and, asc, eq, gte, isNull, lt, or, sql } from 'drizzle-orm';
import { Clock } from '../../common/time/clock';
import { addDays, localParts, monthBounds, zonedInstant } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import { actInMessWithin, Database, type DbOrTx } from '../../database/database';
import { isAnyUuid } from '../../database/sql-arrays';
import { membershipPeriods } from './membership-periods.schema';

/** A member's stretch on a mess's rolls, as local dates: from `from` to the day before `until` (null: still on). */
export interface RollsSpan {
  userId: string;
  /** The first day on the rolls (the day of the approval, move in or start of dining). */
  from: string;
  /** The day they left (moved out, rejected, stopped dining): not on the rolls that day; null while on them. */
  until: string | null;
}

/**
 * Extension 2.3: since when each member is on each mess's rolls. The users module writes a stretch in the
 * transaction of every approval, rejection, move and change of dining (`begin`/`end`); billing and the term moves
 * (issue 34) read the rolls of the mess the code acts in (`rollsOverlapping`, `daysOnRolls`).
 */
@Injectable()
export class MembershipPeriods {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  /** Opens the member's stretch in `messId` from now, inside `tx` (which then acts in `messId`). */
  async begin(
    tx: DbOrTx,
    userId: string,
    messId: string,
    dines: boolean,
    at = this.clock.now(),
  ): Promise<void> {
    await actInMessWithin(tx, messId);
    await tx.insert(membershipPeriods).values({ messId, userId, startedAt: at, dines });
  }

  /** Ends the member's open stretch in `messId` now, inside `tx` (which then acts in `messId`); none: nothing. */
  async end(tx: DbOrTx, userId: string, messId: string, at = this.clock.now()): Promise<void> {
    await actInMessWithin(tx, messId);
    await tx
      .update(membershipPeriods)
      // Never before its start (a clock set back, in tests or after a correction): then a stretch of no day.
      .set({ endedAt: sql`greatest(${at}::timestamptz, ${membershipPeriods.startedAt})` })
      .where(and(eq(membershipPeriods.userId, userId), isNull(membershipPeriods.endedAt)));
  }

  /**
   * Ends the member's open stretch in `messId` at the end of today (the next local midnight): erasure (extension
   * 2.3) keeps the day of the erasure on the rolls and none after.
   */
  endAfterToday(tx: DbOrTx, userId: string, messId: string): Promise<void> {
    const tz = this.config.messTimezone;
    const today = localParts(this.clock.now(), tz).date;
    return this.end(tx, userId, messId, zonedInstant(addDays(today, 1), '00:00', tz));
  }

  /** `begin` for many members joining `messId`, in one statement. */
  async beginMany(
    tx: DbOrTx,
    members: readonly { userId: string; dines: boolean }[],
    messId: string,
    at = this.clock.now(),
  ): Promise<void> {
    if (!members.length) return;
    await actInMessWithin(tx, messId);
    await tx
      .insert(membershipPeriods)
      .values(members.map((m) => ({ messId, userId: m.userId, startedAt: at, dines: m.dines })));
  }

  /** `end` for many members leaving `messId`, in one statement. */
  async endMany(
    tx: DbOrTx,
    userIds: readonly string[],
    messId: string,
    at = this.clock.now(),
  ): Promise<void> {
    if (!userIds.length) return;
    await actInMessWithin(tx, messId);
    await tx
      .update(membershipPeriods)
      .set({ endedAt: sql`greatest(${at}::timestamptz, ${membershipPeriods.startedAt})` })
      .where(and(isAnyUuid(membershipPeriods.userId, userIds), isNull(membershipPeriods.endedAt)));
  }

  /**
   * The stretches on the rolls (dining) of the mess the code acts in that have a day in [from, to] (local dates),
   * by member and start; a stretch of no day (begun and ended on one date) is left out.
   */
  async rollsOverlapping(from: string, to: string, db: DbOrTx = this.database.db): Promise<RollsSpan[]> {
    const tz = this.config.messTimezone;
    const rows = await db
      .select({
        userId: membershipPeriods.userId,
        startedAt: membershipPeriods.startedAt,
        endedAt: membershipPeriods.endedAt,
      })
      .from(membershipPeriods)
      .where(
        and(
          eq(membershipPeriods.dines, true),
          lt(membershipPeriods.startedAt, zonedInstant(addDays(to, 1), '00:00', tz)),
          or(
            isNull(membershipPeriods.endedAt),
            gte(membershipPeriods.endedAt, zonedInstant(from, '00:00', tz)),
          ),
        ),
      )
      .orderBy(asc(membershipPeriods.userId), asc(membershipPeriods.startedAt));
    return rows
      .map((r) => ({
        userId: r.userId,
        from: localParts(r.startedAt, tz).date,
        until: r.endedAt ? localParts(r.endedAt, tz).date : null,
      }))
      .filter(
        (s) => (s.until === null || s.until > s.from) && s.from <= to && (s.until === null || s.until > from),
      );
  }

  /**
   * When the member's first membership of the mess the code acts in began (their approval or move into it, dining or
   * not); undefined when they never had one (a member still pending).
   */
  async firstStart(userId: string, db: DbOrTx = this.database.db): Promise<Date | undefined> {
    const [row] = await db
      .select({ startedAt: membershipPeriods.startedAt })
      .from(membershipPeriods)
      .where(eq(membershipPeriods.userId, userId))
      .orderBy(asc(membershipPeriods.startedAt))
      .limit(1);
    return row?.startedAt;
  }

  /** How many days of `month` the member is on the rolls of the mess the code acts in (days to come included). */
  async daysOnRolls(userId: string, month: string, db?: DbOrTx): Promise<number> {
    const { first, last } = monthBounds(month);
    const spans = (await this.rollsOverlapping(first, last, db)).filter((s) => s.userId === userId);
    const days = new Set<string>();
    for (const span of spans) {
      for (let date = span.from < first ? first : span.from; date <= last; date = addDays(date, 1)) {
        if (span.until !== null && date >= span.until) break;
        days.add(date);
      }
    }
    return days.size;
  }
}

/** Whether `date` is a day of one of `spans` (one member's). */
export const onRollsOn = (spans: readonly RollsSpan[], date: string): boolean =>
  spans.some((s) => s.from <= date && (s.until === null || date < s.until));
