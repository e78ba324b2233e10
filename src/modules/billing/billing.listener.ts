import { Injectable } from '@nestjs/common';
import { OnCommitted, OnDomainEvent } from '../../common/events/domain-event-bus';
import {
  type AttendanceEvent,
  type ExpenseEvent,
  type ExtraEvent,
  type FeedbackEvent,
  type LeaveEvent,
} from '../../common/events/event-map';
import { monthOf, monthsBetween } from '../../common/time/dates';
import { MonthCache } from './month-cache';

/**
 * Writes elsewhere change a month's bill and figures: drop its cached answers. (The figures themselves are kept by
 * the database in the transaction of the write: nothing is recalculated here.)
 */
@Injectable()
export class BillingListener {
  constructor(private readonly cache: MonthCache) {}

  // expense.recorded and expense.changed are durable (their notices go through the outbox): the cache hears them at
  // the commit, in the writing process, so the writer's next read of the bill is never stale.
  @OnCommitted('expense.recorded')
  @OnCommitted('expense.changed')
  @OnDomainEvent('expense.deleted')
  onExpense(event: ExpenseEvent): void {
    this.touch(event.months);
  }

  @OnDomainEvent('attendance.marked')
  onAttendance(event: AttendanceEvent): void {
    this.touch([event.month]);
  }

  /** A rating changes the month's meal quality; the bill does not depend on it. */
  @OnDomainEvent('feedback.submitted')
  onFeedback(event: FeedbackEvent): void {
    this.cache.invalidate([monthOf(event.date)]);
  }

  /**
   * A decided or cancelled leave moves the headcount's `onLeave` of its days, and the daily rate's rebates of its
   * months and, through the term's cap, of the months after it in its term (a term is at most twelve months).
   */
  // A durable event (its notice goes through the outbox): the cache hears it at the commit, in the writing process.
  @OnCommitted('leave.decided')
  onLeaveDecided(event: LeaveEvent): void {
    const end = monthOf(event.endDate);
    const [year, month] = end.split('-').map(Number);
    const later = `${year + 1}-${String(month).padStart(2, '0')}`;
    this.cache.invalidate(monthsBetween(monthOf(event.startDate), later));
  }

  /** The bill reads extras when it is computed (they are not among the stored inputs): its cached answers go. */
  @OnDomainEvent('extra.recorded')
  @OnDomainEvent('extra.deleted')
  onExtra(event: ExtraEvent): void {
    this.cache.invalidate([event.month]);
  }

  /**
   * Approvals, rejections, role and dining changes move `totalMembers` (and the headcount) of every month. (Not the
   * bill's inputs: every present mark and every extra is billed, whoever dines now; nobody marks a non-diner present.)
   */
  @OnDomainEvent('member.changed')
  onMemberChanged(): void {
    this.cache.invalidateAll();
  }

  private touch(months: string[]): void {
    this.cache.invalidate(months);
  }
}
