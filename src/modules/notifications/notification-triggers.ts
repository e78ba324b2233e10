import { createHash } from 'node:crypto';
import { currentMessId } from '../../common/tenancy/mess-scope';
import { Injectable, Logger } from '@nestjs/common';
import { Outages } from '../../common/outages/outages';
import { OnCommitted, OnDomainEvent } from '../../common/events/domain-event-bus';
import {
  type AttendanceBulkEvent,
  type AttendanceDiscrepancyEvent,
  type AttendanceEvent,
  type ExpenseEvent,
  type MealEvent,
} from '../../common/events/event-map';
import { toPaise } from '../../common/money/money';
import { Clock } from '../../common/time/clock';
import { localParts, zonedInstant } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import { ExpensesQueries } from '../expenses';
import { MealsService } from '../meals';
import { MessConfigService } from '../mess-config';
import { UsersService } from '../users';
import { Messages } from './messages';
import { NotificationsService } from './notifications.service';
import { PendingWork } from './pending-work';
import { OutboxRelay } from '../outbox';

/**
 * The notifications that follow from something that happened (a domain event), as opposed to the scheduled ones.
 *
 * | type              | event                         | who receives it                              |
 * |-------------------|-------------------------------|----------------------------------------------|
 * | EXPENSE_ADDED     | expense recorded              | managers and treasurers, but not the recorder |
 * | BUDGET_EXCEEDED   | expense recorded or changed   | managers, treasurers and admins; once a month |
 * | MEAL_UPDATE       | menu published, changed or withdrawn | members who dine but the publisher; today onward |
 * | DISCREPANCY_ALERT | attendance marked or changed  | dining managers but the one who marked; one per bulk |
 */
@Injectable()
export class NotificationTriggers {
  private readonly logger = new Logger('NotificationTriggers');
  private readonly pending: PendingWork;
  /**
   * Meal slots served without a menu that were already reported (their alert is one per slot and manager), and
   * slots whose menu was seen published, until when: a dinner rush scans a plate a second, and each would otherwise
   * read the menu (or, without one, the managers and the member's name) again after its answer. Only slots of meals
   * in progress are kept, so both stay small; a menu withdrawn here forgets its slot at once, one withdrawn through
   * another replica within MENU_SEEN_MS.
   */
  private readonly reportedNoMenu = new Set<string>();
  private readonly menuSeen = new Map<string, number>();
  static readonly MENU_SEEN_MS = 10_000;
  private static readonly SLOTS_KEPT = 500;

  constructor(
    private readonly notifications: NotificationsService,
    private readonly users: UsersService,
    private readonly messConfig: MessConfigService,
    private readonly expenses: ExpensesQueries,
    private readonly meals: MealsService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly relay: OutboxRelay,
    outages: Outages,
  ) {
    this.pending = new PendingWork(this.logger, outages);
  }

  /**
   * Resolves when every listener started so far has finished, the outbox's (expenses, menus, marks after the meal)
   * and the in-process ones (marks before it): tests wait on it before draining the queue.
   */
  async idle(): Promise<void> {
    await this.relay.idle();
    await this.pending.idle();
  }

  // Durable events (the outbox): each listener returns its work, so a failure makes the relay hand the event on
  // again; the dedupe keys make a second run queue nothing.
  @OnDomainEvent('expense.recorded')
  async onExpenseRecorded(event: ExpenseEvent): Promise<void> {
    await this.expenseAdded(event);
    await this.checkBudget(event.months);
  }

  @OnDomainEvent('expense.changed')
  async onExpenseChanged(event: ExpenseEvent): Promise<void> {
    await this.checkBudget(event.months);
  }

  @OnDomainEvent('meal.published')
  async onMealPublished(event: MealEvent): Promise<void> {
    await this.mealUpdate(event, 'published');
  }

  @OnDomainEvent('meal.changed')
  async onMealChanged(event: MealEvent): Promise<void> {
    await this.mealUpdate(event, 'changed');
  }

  @OnDomainEvent('meal.deleted')
  async onMealDeleted(event: MealEvent): Promise<void> {
    await this.mealUpdate(event, 'withdrawn');
  }

  /** The menus seen published (a cache): dropped at the commit, in the writing process. */
  @OnCommitted('meal.changed')
  forgetMenusSeen(): void {
    this.menuSeen.clear(); // a menu moved to another slot leaves its old one without
  }

  @OnCommitted('meal.deleted')
  forgetMenuSeen(event: MealEvent): void {
    this.menuSeen.delete(`${currentMessId()}:${event.date}:${event.mealType}`);
  }

  /**
   * Marks written after their meal ended (durable: written in the marks' transaction, so a crash after their commit
   * loses no alert). The alert is keyed on the marks' version, so a second delivery queues nothing.
   */
  @OnDomainEvent('attendance.discrepancy')
  async onAttendanceDiscrepancy(event: AttendanceDiscrepancyEvent): Promise<void> {
    await this.slotDiscrepancies(event, { afterMeal: true });
  }

  // In-process, after commit (the hot path: an outbox row per mark is too much): a mark before its meal's end, for
  // the 'no-menu' alert. A mark written after the end (`afterMeal`) is the durable event's above.
  @OnDomainEvent('attendance.marked')
  onAttendanceMarked(event: AttendanceEvent): void {
    // a bulk request's marks are handled once, together, from AttendanceMarkedInBulk
    if (event.inBulk || event.afterMeal) return;
    this.pending.track('attendance marked', () => this.discrepancy(event));
  }

  @OnDomainEvent('attendance.marked-in-bulk')
  onAttendanceMarkedInBulk(event: AttendanceBulkEvent): void {
    if (event.marks.some((mark) => mark.afterMeal)) return;
    this.pending.track('attendance marked in bulk', () => this.slotDiscrepancies(event));
  }

  /** EXPENSE_ADDED to the managers and treasurers, except the member who recorded it. */
  async expenseAdded(event: ExpenseEvent): Promise<number> {
    const [recipients, recorder] = await Promise.all([
      this.notifications.members(['manager', 'treasurer']),
      this.users.findById(event.recordedBy),
    ]);
    const message = Messages.expenseAdded({ ...event, recordedBy: recorder?.fullName ?? 'A member' });
    const created = await this.notifications.notify(
      recipients
        .filter((member) => member.id !== event.actorId)
        .map((member) => ({
          userId: member.id,
          type: 'EXPENSE_ADDED' as const,
          ...message,
          dedupeKey: `EXPENSE_ADDED:${event.expenseId}:${member.id}`,
        })),
    );
    return created.length;
  }

  /**
   * BUDGET_EXCEEDED the first time a month's spending goes over the configured monthly budget: once per month and
   * member (the dedupe key), so later expenses of that month, or another replica, add nothing.
   */
  async checkBudget(months: string[]): Promise<number> {
    const { monthlyBudget } = await this.messConfig.settings();
    const budgetPaise = monthlyBudget === null ? undefined : toPaise(monthlyBudget);
    if (budgetPaise === undefined) return 0;
    let queued = 0;
    for (const month of months) {
      const totalPaise = await this.expenses.monthTotal(month);
      if (totalPaise <= budgetPaise) continue;
      const recipients = await this.notifications.members(['manager', 'treasurer', 'admin']);
      const message = Messages.budgetExceeded(month, totalPaise, budgetPaise);
      const created = await this.notifications.notify(
        recipients.map((member) => ({
          userId: member.id,
          type: 'BUDGET_EXCEEDED' as const,
          ...message,
          dedupeKey: `BUDGET_EXCEEDED:${month}:${member.id}`,
        })),
      );
      queued += created.length;
    }
    return queued;
  }

  /**
   * MEAL_UPDATE to every member who dines but the publisher, for menus of today or later (a past menu is history):
   * when a menu is published, changed or withdrawn (a member with `dines: false` does not eat what it says). Keyed on the menu's version (its updatedAt), so every change is
   * announced, back-and-forth ones too (Dal → Rajma → Dal is three), while a change handled twice is sent once. A
   * re-save that leaves the announced content as it was announces nothing.
   */
  async mealUpdate(event: MealEvent, change: 'published' | 'changed' | 'withdrawn'): Promise<number> {
    const today = localParts(this.clock.now(), this.config.messTimezone).date;
    if (event.date < today) return 0;
    const message = Messages.mealUpdate(event, change);
    const keyPrefix = `MEAL_UPDATE:${event.mealId}:`;
    if (
      change === 'changed' &&
      (await this.notifications.lastNotified(keyPrefix))?.content === message.content
    )
      return 0;
    // The version is the menu's updatedAt, to the millisecond, and what it says: a publish and a change made within
    // one millisecond (their triggers may run in either order) are two announcements, not one.
    const said = createHash('sha256').update(message.content).digest('hex').slice(0, 12);
    const version =
      change === 'withdrawn' ? 'withdrawn' : `${event.updatedAt ?? this.clock.now().toISOString()}:${said}`;
    const recipients = await this.notifications.diners();
    const created = await this.notifications.notify(
      recipients
        .filter((member) => member.id !== event.actorId)
        .map((member) => ({
          userId: member.id,
          type: 'MEAL_UPDATE' as const,
          ...message,
          dedupeKey: `${keyPrefix}${version}:${member.id}`,
        })),
    );
    return created.length;
  }

  /** DISCREPANCY_ALERT for one mark (POST or PUT /attendance). */
  discrepancy(event: AttendanceEvent): Promise<number> {
    return this.slotDiscrepancies({
      date: event.date,
      mealType: event.mealType,
      actorId: event.actorId,
      markedAt: event.markedAt ?? this.clock.now().toISOString(),
      marks: [event],
    });
  }

  /**
   * DISCREPANCY_ALERT to the managers (but the one who marked) when marks of one meal slot are created or changed
   * after its meal ended, or members are marked present for a meal that has begun without a published menu. One
   * alert per manager for a whole bulk request, summarising its marks; settings, menu, managers and names are read
   * once. Keyed on the mark's (or the batch's) version, so every later change is reported and none twice; a meal
   * in progress without a menu on its slot, so it is reported once. `decided.afterMeal`: the marks were written
   * after the meal ended (the durable event's, decided at the write); otherwise it is told by the clock now.
   */
  async slotDiscrepancies(batch: AttendanceBulkEvent, decided?: { afterMeal: boolean }): Promise<number> {
    const { mealTimes } = await this.messConfig.settings();
    const meal = mealTimes.find((m) => m.name === batch.mealType);
    if (!meal || !batch.marks.length) return 0;
    const now = this.clock.now();
    const tz = this.config.messTimezone;
    const afterMeal = decided?.afterMeal ?? zonedInstant(batch.date, meal.endTime, tz) <= now;
    const begun = zonedInstant(batch.date, meal.startTime, tz) <= now;
    // Per mess: each has its own menus and its own discrepancies.
    const slot = `${currentMessId()}:${batch.date}:${batch.mealType}`;
    const presentNow = begun && batch.marks.some((mark) => mark.status === 'present');
    if (presentNow && !afterMeal && this.reportedNoMenu.has(slot)) return 0;
    const noMenu = presentNow && !(await this.hasMenu(slot, batch));
    if (!afterMeal && !noMenu) return 0;
    const reasons: ('after-meal' | 'no-menu')[] = [
      ...(afterMeal ? (['after-meal'] as const) : []),
      ...(noMenu ? (['no-menu'] as const) : []),
    ];
    const [managers, names] = await Promise.all([
      this.notifications.diners(['manager']),
      this.users.namesOf([...new Set(batch.marks.map((mark) => mark.userId))]),
    ]);
    const marks = batch.marks.map((mark) => ({ ...mark, memberName: names.get(mark.userId) ?? 'A member' }));
    const single = marks.length === 1 ? marks[0] : undefined;
    const message = single
      ? Messages.discrepancy(single, reasons)
      : Messages.slotDiscrepancies(batch, marks, reasons);
    // A meal being served without a menu is one alert per slot and manager, however many plates are marked or
    // scanned (a dinner rush would otherwise send one per plate); marks after the meal are reported one by one.
    const version = !afterMeal
      ? `no-menu:${batch.date}:${batch.mealType}`
      : single
        ? `${single.attendanceId}:${single.markedAt ?? batch.markedAt}:${single.status}`
        : `${batch.date}:${batch.mealType}:${batch.markedAt}`;
    const created = await this.notifications.notify(
      managers
        .filter((manager) => manager.id !== batch.actorId)
        .map((manager) => ({
          userId: manager.id,
          type: 'DISCREPANCY_ALERT' as const,
          ...message,
          dedupeKey: `DISCREPANCY_ALERT:${version}:${manager.id}`,
        })),
    );
    if (!afterMeal) remember(this.reportedNoMenu, slot, NotificationTriggers.SLOTS_KEPT);
    return created.length;
  }

  /** Whether the slot's menu is published: read at most every MENU_SEEN_MS while it is. */
  private async hasMenu(slot: string, batch: AttendanceBulkEvent): Promise<boolean> {
    const now = Date.now();
    if ((this.menuSeen.get(slot) ?? 0) > now) return true;
    const published = await this.meals.exists(batch.date, batch.mealType);
    if (published) {
      if (this.menuSeen.size >= NotificationTriggers.SLOTS_KEPT) this.menuSeen.clear();
      this.menuSeen.set(slot, now + NotificationTriggers.MENU_SEEN_MS);
    }
    return published;
  }
}

/** Adds `key` to a set kept under `limit` entries (emptied when full: the slots it holds are of meals now served). */
function remember(set: Set<string>, key: string, limit: number): void {
  if (set.size >= limit) set.clear();
  set.add(key);
}
