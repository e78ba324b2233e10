import { Injectable } from '@nestjs/common';
import { DomainEventBus } from '../../common/events/domain-event-bus';
import {
  AttendanceBulkEvent,
  AttendanceDiscrepancyEvent,
  AttendanceEvent,
} from '../../common/events/event-map';
import { monthOf } from '../../common/time/dates';
import type { WrittenMark } from './attendance.repository';
import { changesStatus, otherStatus } from './marking-rules';

/** The slot a bulk request marked, and when. */
export interface BulkSlot {
  date: string;
  mealType: string;
  markedAt: Date;
}

/**
 * The 'attendance.marked' payloads of written marks; a mark taken over with its status unchanged changes no figure
 * and is no news. A bulk request's marks are flagged `inBulk`.
 */
export function markedEvents(written: WrittenMark[], actorId: string, inBulk = false): AttendanceEvent[] {
  return written.filter(changesStatus).map((mark) => ({
    attendanceId: mark.id,
    userId: mark.userId,
    date: mark.date,
    mealType: mark.mealType,
    status: mark.status,
    ...(mark.created ? {} : { previousStatus: mark.previousStatus ?? otherStatus(mark.status) }),
    actorId,
    month: monthOf(mark.date),
    markedAt: mark.markedAt.toISOString(),
    ...(inBulk ? { inBulk: true } : {}),
    ...(mark.afterMeal ? { afterMeal: true } : {}),
  }));
}

/** The 'attendance.marked-in-bulk' payload: the slot's marks of one request, as published one by one. */
export const markedInBulkEvent = (
  slot: BulkSlot,
  actorId: string,
  marks: AttendanceEvent[],
): AttendanceBulkEvent => ({
  date: slot.date,
  mealType: slot.mealType,
  actorId,
  markedAt: slot.markedAt.toISOString(),
  marks,
});

/**
 * The 'attendance.discrepancy' payload of marks of one slot written after their meal ended, by `actorId` at
 * `markedAt` (one mark's, or a bulk request's): the marks that changed a status, as their 'attendance.marked' events
 * say; none when no mark did.
 */
export function discrepancyEvent(
  written: WrittenMark[],
  actorId: string,
  slot: BulkSlot,
): AttendanceDiscrepancyEvent | undefined {
  const marks = markedEvents(written, actorId);
  return marks.length ? { ...markedInBulkEvent(slot, actorId, marks), reason: 'after-meal' } : undefined;
}

/** Publishes written marks after commit; a failing listener never fails the request. */
@Injectable()
export class AttendanceEvents {
  constructor(private readonly events: DomainEventBus) {}

  /** One event per mark that changed a status. */
  marked(written: WrittenMark[], actorId: string): void {
    for (const event of markedEvents(written, actorId)) this.events.publish('attendance.marked', event);
  }

  /** One event per mark, then the slot's marks again as one event. */
  markedInBulk(written: WrittenMark[], actorId: string, slot: BulkSlot): void {
    const events = markedEvents(written, actorId, true);
    for (const event of events) this.events.publish('attendance.marked', event);
    if (events.length)
      this.events.publish('attendance.marked-in-bulk', markedInBulkEvent(slot, actorId, events));
  }
}
