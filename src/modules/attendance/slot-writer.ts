import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error';
import { DomainEventBus } from '../../common/events/domain-event-bus';
import { Clock } from '../../common/time/clock';
import { mealSpan } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import type { DbOrTx } from '../../database/database';
import { AuditTrail } from '../audit-trail';
import { LeaveCalendar } from '../leave-calendar';
import type { MealTime } from '../mess-config';
import { discrepancyEvent } from './attendance-events';
import { AttendanceRepository, MarkWriter, SlotMark, WrittenMark } from './attendance.repository';
import { AttendanceRow, AttendanceStatus } from './attendance.schema';
import { ON_LEAVE } from './attendance.errors';
import { changesStatus, isClosedMonthRefusal, isRepeatOf, otherStatus } from './marking-rules';

/** Where a bulk request names a member in its errors (`marks.<i>.userId`). */
export type FieldOfMember = (userId: string) => string;

/**
 * The one way marks are written: the marks of one meal slot under the members' leave locks, with the audit of marks
 * made after the meal and their durable DISCREPANCY_ALERT event ('attendance.discrepancy'), in one transaction.
 */
@Injectable()
export class SlotWriter {
  constructor(
    private readonly repository: AttendanceRepository,
    private readonly leave: LeaveCalendar,
    private readonly audit: AuditTrail,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly events: DomainEventBus,
  ) {}

  /**
   * Writes marks of one meal slot in `db`: the leave locks of the members marked present (shared), the refusal of
   * the write if an approved leave of any covers the meal, and the upsert, in one statement (which returns each
   * written row with the status it held before, to tell a changed status from a taken-over one); then, for marks
   * made after the meal, their audit and their 'attendance.discrepancy' event (the outbox: one row for the write,
   * none for a mark before the meal's end), and the written marks flagged `afterMeal`. Without `db`, marks before the meal's end are that one statement alone (its own
   * transaction: one round trip, the counter's scan and a member's own mark), later ones a transaction of their own.
   * Marks that wrote nothing are not returned.
   */
  write(
    marks: SlotMark[],
    meal: MealTime | undefined,
    writer: MarkWriter,
    db?: DbOrTx,
    fieldOf?: FieldOfMember,
  ): Promise<WrittenMark[]> {
    const present = marks.filter((mark) => mark.status === 'present').map((mark) => mark.userId);
    const span = meal && marks.length ? mealSpan(marks[0].date, meal, this.config.messTimezone) : undefined;
    const onLeave = present.length && span ? this.leave.onLeaveLocked(present, span.start) : undefined;
    const afterMeal = span !== undefined && this.clock.now() >= span.end;
    const work = async (tx?: DbOrTx): Promise<WrittenMark[]> => {
      const result = await this.repository.upsertMarks(marks, tx, writer, onLeave);
      if (result.onLeave.length) throw this.onLeaveRefusal(marks, new Set(result.onLeave), fieldOf);
      if (!afterMeal || !tx) return result.written;
      const written = result.written.map((mark) => ({ ...mark, afterMeal: true }));
      await this.recordAfterMeal(tx, written);
      await this.publishDiscrepancy(tx, written, marks[0]);
      return written;
    };
    if (db) return work(db);
    return afterMeal ? this.repository.transaction(work) : work();
  }

  /**
   * As write, and a repeat into a closed month succeeds: the month-close trigger refuses even an upsert that would
   * change nothing, so on that refusal the slot is read, and nothing written is reported when it holds these statuses.
   */
  async writeRepeatingClosedMonth(
    marks: SlotMark[],
    meal: MealTime | undefined,
    writer: MarkWriter,
  ): Promise<WrittenMark[]> {
    try {
      return await this.write(marks, meal, writer);
    } catch (error) {
      await this.storedUnlessClosedMonthChange(error, marks[0].date, marks[0].mealType, marks);
      return [];
    }
  }

  /**
   * After a write failed: when it was the closed-month refusal and the slot's stored marks already hold every
   * given status (a repeat), returns those stored marks; otherwise rethrows the error.
   */
  async storedUnlessClosedMonthChange(
    error: unknown,
    date: string,
    mealType: string,
    marks: { userId: string; status: AttendanceStatus }[],
  ): Promise<AttendanceRow[]> {
    if (!isClosedMonthRefusal(error)) throw error;
    const stored = await this.repository.findSlots(
      date,
      mealType,
      marks.map((mark) => mark.userId),
    );
    if (isRepeatOf(marks, stored)) return stored;
    throw error;
  }

  /** 409: the members on approved leave for the meal, named by field when the request names them. */
  private onLeaveRefusal(marks: SlotMark[], onLeave: Set<string>, fieldOf: FieldOfMember | undefined): ApiError {
    return new ApiError(
      409,
      ON_LEAVE,
      fieldOf
        ? marks
            .filter((mark) => onLeave.has(mark.userId) && mark.status === 'present')
            .map((mark) => ({
              field: fieldOf(mark.userId),
              message: 'the member is on approved leave for this meal',
            }))
            .sort((x, y) => x.field.localeCompare(y.field, 'en', { numeric: true }))
        : undefined,
    );
  }

  /**
   * DISCREPANCY_ALERT is promised for marks made or changed after their meal ended: their event is written in the
   * write's transaction, by the writer of `mark` at its markedAt (the same for all marks of one write: a bulk
   * request's batch), and delivered from the outbox after the commit.
   */
  private async publishDiscrepancy(tx: DbOrTx, written: WrittenMark[], mark: SlotMark): Promise<void> {
    const event = discrepancyEvent(written, mark.markedBy, {
      date: mark.date,
      mealType: mark.mealType,
      markedAt: mark.markedAt,
    });
    if (event) await this.events.publishWithin(tx, 'attendance.discrepancy', event);
  }

  /**
   * Every mark made or changed after its meal ended is in the audit trail, in the write's transaction: those are the
   * marks that move a bill after the fact.
   */
  private async recordAfterMeal(tx: DbOrTx, written: WrittenMark[]): Promise<void> {
    for (const mark of written.filter(changesStatus)) {
      await this.audit.record(tx, {
        actorId: mark.markedBy,
        action: mark.created ? 'marked-after-meal' : 'changed-after-meal',
        entity: 'attendance',
        entityId: mark.id,
        before: mark.created ? undefined : { status: mark.previousStatus ?? otherStatus(mark.status) },
        after: {
          userId: mark.userId,
          date: mark.date,
          mealType: mark.mealType,
          status: mark.status,
          source: mark.source,
        },
      });
    }
  }
}
