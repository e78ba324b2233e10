import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { createHash } from 'node:crypto';
import {
  type AttendanceEvent,
  DomainEvents,
  type ExpenseEvent,
  type MealEvent,
} from '../../common/events/domain-events';
import { toPaise } from '../../common/money/money';
import { Clock } from '../../common/time/clock';
import { localParts, zonedInstant } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import { ExpensesQueries } from '../expenses/expenses.queries';
import { ListMealsQuery } from '../meals/dto/meal.requests';
import { MealsService } from '../meals/meals.service';
import { MessConfigService } from '../mess-config/mess-config.service';
import { UsersService } from '../users/users.service';
import { Messages } from './messages';
import { NotificationsService } from './notifications.service';
import { PendingWork } from './pending-work';

/**
 * The notifications that follow from something that happened (a domain event), as opposed to the scheduled ones.
 *
 * | type              | event                         | who receives it                              |
 * |-------------------|-------------------------------|----------------------------------------------|
 * | EXPENSE_ADDED     | expense recorded              | managers and treasurers, but not the recorder |
 * | BUDGET_EXCEEDED   | expense recorded or changed   | managers, treasurers and admins; once a month |
 * | MEAL_UPDATE       | menu published or changed     | every member but the publisher; today onward  |
 * | DISCREPANCY_ALERT | attendance marked or changed  | managers but the one who marked               |
 */
@Injectable()
export class NotificationTriggers {
  private readonly logger = new Logger('NotificationTriggers');
  private readonly pending = new PendingWork(this.logger);

  constructor(
    private readonly notifications: NotificationsService,
    private readonly users: UsersService,
    private readonly messConfig: MessConfigService,
    private readonly expenses: ExpensesQueries,
    private readonly meals: MealsService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  /** Resolves when every listener started so far has finished (tests wait on it before draining the queue). */
  idle(): Promise<void> {
    return this.pending.idle();
  }

  @OnEvent(DomainEvents.ExpenseRecorded)
  onExpenseRecorded(event: ExpenseEvent): void {
    this.pending.track('expense recorded', async () => {
      await this.expenseAdded(event);
      await this.checkBudget(event.months);
    });
  }

  @OnEvent(DomainEvents.ExpenseChanged)
  onExpenseChanged(event: ExpenseEvent): void {
    this.pending.track('expense changed', () => this.checkBudget(event.months));
  }

  @OnEvent(DomainEvents.MealPublished)
  onMealPublished(event: MealEvent): void {
    this.pending.track('menu published', () => this.mealUpdate(event, true));
  }

  @OnEvent(DomainEvents.MealChanged)
  onMealChanged(event: MealEvent): void {
    this.pending.track('menu changed', () => this.mealUpdate(event, false));
  }

  @OnEvent(DomainEvents.AttendanceMarked)
  onAttendanceMarked(event: AttendanceEvent): void {
    this.pending.track('attendance marked', () => this.discrepancy(event));
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
   * MEAL_UPDATE to every member but the publisher, for menus of today or later (a past menu is history). The same
   * menu content is announced once per member.
   */
  async mealUpdate(event: MealEvent, published: boolean): Promise<number> {
    const today = localParts(this.clock.now(), this.config.messTimezone).date;
    if (event.date < today) return 0;
    const recipients = await this.notifications.members();
    const version = createHash('sha256')
      .update(JSON.stringify([event.date, event.mealType, event.dishes]))
      .digest('hex')
      .slice(0, 16);
    const message = Messages.mealUpdate(event, published);
    const created = await this.notifications.notify(
      recipients
        .filter((member) => member.id !== event.actorId)
        .map((member) => ({
          userId: member.id,
          type: 'MEAL_UPDATE' as const,
          ...message,
          dedupeKey: `MEAL_UPDATE:${event.mealId}:${version}:${member.id}`,
        })),
    );
    return created.length;
  }

  /**
   * DISCREPANCY_ALERT to the managers (but the one who marked) when a mark is created or changed after its meal
   * ended, or when a member is marked present for a meal that has begun without a published menu.
   */
  async discrepancy(event: AttendanceEvent): Promise<number> {
    const { mealTimes } = await this.messConfig.settings();
    const meal = mealTimes.find((m) => m.name === event.mealType);
    if (!meal) return 0;
    const now = this.clock.now();
    const tz = this.config.messTimezone;
    const reasons: ('after-meal' | 'no-menu')[] = [];
    if (zonedInstant(event.date, meal.endTime, tz) <= now) reasons.push('after-meal');
    if (
      event.status === 'present' &&
      zonedInstant(event.date, meal.startTime, tz) <= now &&
      !(await this.menuExists(event.date, event.mealType))
    ) {
      reasons.push('no-menu');
    }
    if (!reasons.length) return 0;
    const [managers, member] = await Promise.all([
      this.notifications.members(['manager']),
      this.users.findById(event.userId),
    ]);
    const message = Messages.discrepancy({ ...event, memberName: member?.fullName ?? 'A member' }, reasons);
    const created = await this.notifications.notify(
      managers
        .filter((manager) => manager.id !== event.actorId)
        .map((manager) => ({
          userId: manager.id,
          type: 'DISCREPANCY_ALERT' as const,
          ...message,
          dedupeKey: `DISCREPANCY_ALERT:${event.attendanceId}:${event.status}:${manager.id}`,
        })),
    );
    return created.length;
  }

  private async menuExists(date: string, mealType: string): Promise<boolean> {
    const query = Object.assign(new ListMealsQuery(), { date, mealType });
    return (await this.meals.list(query)).length > 0;
  }
}
