import { inEveryMess } from '../../common/tenancy/every-mess';
import { currentMessId } from '../../common/tenancy/mess-scope';
import { MessDirectory } from '../messes';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { Outages } from '../../common/outages/outages';
import { Clock } from '../../common/time/clock';
import { addDays, localParts, monthOf, zonedInstant } from '../../common/time/dates';
import { LeaveCalendar } from '../leave-calendar';
import { AppConfig } from '../../config/app-config';
import { AttendanceQueries } from '../attendance';
import { type MealTime, MessConfigService } from '../mess-config';
import { Messages } from './messages';
import type { NotificationType } from './notification-types';
import { NotificationsService } from './notifications.service';

/** One member's line of a month's bill, as the billing module computes it (paise): share + extras = total. */
export interface MemberBill {
  userId: string;
  meals: number;
  sharePaise: number;
  extrasPaise: number;
  totalPaise: number;
}

/** What the monthly schedules need from billing and accounts: a month's bill, and who owes how much now. */
export interface MonthlyBills {
  bill(month: string): Promise<{ totalPaise: number; lines: MemberBill[] }>;
  dues(): Promise<{ userId: string; balancePaise: number }[]>;
}
export const MONTHLY_BILLS = Symbol('MONTHLY_BILLS');

/**
 * The scheduled notifications. @nestjs/schedule ticks once a minute; each handler looks at the time in the mess's
 * time zone and queues what is due. Every notification carries a (type, period, member) dedupe key, so a second
 * replica, a restart or a repeated tick never queues it twice, and a tick missed while the service was down is
 * caught up by a later one in the same window.
 *
 * | type                    | when (mess time zone)                                            | to whom                               |
 * |-------------------------|------------------------------------------------------------------|---------------------------------------|
 * | MEAL_REMINDER           | from NOTIFY_MEAL_REMINDER_MINUTES (60) before each meal to its start | diners who have not marked that meal  |
 * | ATTENDANCE_CONFIRMATION | from NOTIFY_ATTENDANCE_CONFIRMATION_MINUTES (30) before each meal   | diners who have marked it             |
 * | MEAL_UPDATE (headcount) | from NOTIFY_HEADCOUNT_MINUTES (30) before each meal to its end: the count, then its changes | managers |
 * | COST_SUMMARY            | from the 1st, NOTIFY_MONTHLY_TIME (09:00), to the month's end    | members with meals last month         |
 * | PAYMENT_DUE             | from NOTIFY_PAYMENT_DUE_DAYS (7) days later, same time           | members whose balance is due          |
 *
 * The handlers take the instant to act at, so tests drive them with any clock.
 */
@Injectable()
export class NotificationSchedules {
  private readonly logger = new Logger('NotificationSchedules');
  /** Periods this process has already handled: a cheap way to skip the next ticks of the same window. */
  private readonly handled = new Set<string>();
  private warnedNoBills = false;

  constructor(
    private readonly notifications: NotificationsService,
    private readonly attendance: AttendanceQueries,
    private readonly leave: LeaveCalendar,
    private readonly messConfig: MessConfigService,
    private readonly directory: MessDirectory,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly outages: Outages,
    @Optional() @Inject(MONTHLY_BILLS) private readonly bills?: MonthlyBills,
  ) {}

  @Cron(CronExpression.EVERY_MINUTE, { name: 'notifications' })
  async tick(): Promise<void> {
    if (!this.config.notifications.schedules.enabled) return;
    try {
      await this.runDue(this.clock.now());
    } catch (error) {
      this.outages.jobFailed(
        error,
        'the notification schedules',
        this.logger,
        'Scheduled notifications failed',
      );
    }
    try {
      await this.reconcileDelivery(this.clock.now());
    } catch (error) {
      this.outages.jobFailed(error, 'delivery reconciliation', this.logger, 'Delivery reconciliation failed');
    }
  }

  /**
   * Everything due at `now` in every mess (each by its own meal times, members, managers, bills and accounts);
   * returns how many notifications were queued per type, added over the messes.
   */
  async runDue(now: Date = this.clock.now()): Promise<Partial<Record<NotificationType, number>>> {
    const total: Partial<Record<NotificationType, number>> = {};
    // The directory's cached list of messes: this runs every minute.
    const queuedByMess = await inEveryMess(
      (await this.directory.labels()).keys(),
      'the notification schedules',
      () => this.runDueInMess(now),
      { outages: this.outages, logger: this.logger, message: 'Scheduled notifications failed in a mess' },
    );
    for (const queued of queuedByMess.values()) {
      for (const [type, n] of Object.entries(queued) as [NotificationType, number][]) {
        total[type] = (total[type] ?? 0) + n;
      }
    }
    return total;
  }

  /** Gives the notifications whose delivery job was lost a new one (or fails them), in each mess in turn. */
  async reconcileDelivery(now: Date = this.clock.now()): Promise<{ requeued: number; failed: number }> {
    const total = { requeued: 0, failed: 0 };
    const byMess = await inEveryMess(
      (await this.directory.labels()).keys(),
      'delivery reconciliation',
      () => this.notifications.reconcileDelivery(now),
      { outages: this.outages, logger: this.logger, message: 'Delivery reconciliation failed in a mess' },
    );
    for (const { requeued, failed } of byMess.values()) {
      total.requeued += requeued;
      total.failed += failed;
    }
    return total;
  }

  /** Everything due at `now` in the mess the code runs in. */
  private async runDueInMess(now: Date): Promise<Partial<Record<NotificationType, number>>> {
    return {
      MEAL_REMINDER: await this.mealReminders(now),
      ATTENDANCE_CONFIRMATION: await this.attendanceConfirmations(now),
      MEAL_UPDATE: await this.headcounts(now),
      COST_SUMMARY: await this.costSummaries(now),
      PAYMENT_DUE: await this.paymentsDue(now),
    };
  }

  /** MEAL_REMINDER to members who have not marked a meal that starts within the reminder lead. */
  mealReminders(now: Date = this.clock.now()): Promise<number> {
    const lead = this.config.notifications.schedules.mealReminderMinutes;
    return this.forMealsStartingSoon(now, lead, 'MEAL_REMINDER', async (date, meal) => {
      const marked = new Set(await this.attendance.markedUserIds(date, meal.name));
      const away = await this.onLeave(date, meal);
      const members = await this.notifications.diners();
      return members.filter((m) => !marked.has(m.id) && !away.has(m.id)).map((m) => m.id);
    });
  }

  /** ATTENDANCE_CONFIRMATION to members who have marked a meal that starts within the confirmation lead. */
  attendanceConfirmations(now: Date = this.clock.now()): Promise<number> {
    const lead = this.config.notifications.schedules.attendanceConfirmationMinutes;
    return this.forMealsStartingSoon(now, lead, 'ATTENDANCE_CONFIRMATION', async (date, meal) => {
      const marked = new Set(await this.attendance.markedUserIds(date, meal.name));
      const away = await this.onLeave(date, meal);
      const members = await this.notifications.diners();
      return members.filter((m) => marked.has(m.id) && !away.has(m.id)).map((m) => m.id);
    });
  }

  /**
   * MEAL_UPDATE to the managers with a meal's expected headcount (members marked present): once when the meal is
   * NOTIFY_HEADCOUNT_MINUTES away, then, until the meal ends, whenever a tick finds a count other than the last one
   * announced for that slot. Marks made between two ticks are coalesced into one notice, and a count that went back
   * to the announced one says nothing. The dedupe key carries the announcement's version (0 for the first notice),
   * so two replicas evaluating the same change queue it once; the content is the same for a notice and a change, so
   * it tells whether the count moved.
   */
  async headcounts(now: Date = this.clock.now()): Promise<number> {
    const lead = this.config.notifications.schedules.headcountMinutes;
    const tz = this.config.messTimezone;
    const today = localParts(now, tz).date;
    const { mealTimes } = await this.messConfig.settings();
    let queued = 0;
    for (const date of [addDays(today, -1), today, addDays(today, 1)]) {
      for (const meal of mealTimes) {
        const start = zonedInstant(date, meal.startTime, tz).getTime();
        let end = zonedInstant(date, meal.endTime, tz).getTime();
        if (end <= start) end += 86_400_000; // a meal that ends after midnight
        if (now.getTime() < start - lead * 60_000 || now.getTime() >= end) continue;
        const present = await this.attendance.presentCount(date, meal.name);
        const keyPrefix = `MEAL_UPDATE:headcount:${date}:${meal.name}:`;
        const last = await this.notifications.lastNotified(keyPrefix);
        const message = Messages.headcount(meal, date, present, last !== undefined);
        if (last?.content === message.content) continue;
        const version = last ? Number(last.dedupeKey.slice(keyPrefix.length).split(':')[0]) + 1 : 0;
        const managers = await this.notifications.members(['manager']);
        const created = await this.notifications.notify(
          managers.map((manager) => ({
            userId: manager.id,
            type: 'MEAL_UPDATE' as const,
            ...message,
            dedupeKey: `${keyPrefix}${version}:${manager.id}`,
          })),
          { atomic: true },
        );
        if (created.length) {
          this.logger.log({ date, meal: meal.name, present, version }, 'Headcount announced');
        }
        queued += created.length;
      }
    }
    return queued;
  }

  /** COST_SUMMARY on the 1st: each billed member's meals, share, extras and total of the month before. */
  async costSummaries(now: Date = this.clock.now()): Promise<number> {
    const due = this.monthlyDue(now, 1);
    if (!due) return 0;
    return this.once(`COST_SUMMARY:${due.month}`, async () => {
      const bill = await this.billOf(due.month);
      if (!bill) return 0;
      const created = await this.notifications.notify(
        bill.lines
          .filter((line) => line.totalPaise > 0 || line.meals > 0)
          .map((line) => ({
            userId: line.userId,
            type: 'COST_SUMMARY' as const,
            ...Messages.costSummary(due.month, line, bill.totalPaise),
            dedupeKey: `COST_SUMMARY:${due.month}:${line.userId}`,
          })),
        { atomic: true },
      );
      return created.length;
    });
  }

  /** PAYMENT_DUE NOTIFY_PAYMENT_DUE_DAYS after the 1st, to members whose account balance is due, with the amount. */
  async paymentsDue(now: Date = this.clock.now()): Promise<number> {
    const days = this.config.notifications.schedules.paymentDueDays;
    const due = this.monthlyDue(now, 1 + days);
    if (!due) return 0;
    return this.once(`PAYMENT_DUE:${due.month}`, async () => {
      if (!this.available()) return 0;
      const dues = await this.bills!.dues();
      const created = await this.notifications.notify(
        dues.map((account) => ({
          userId: account.userId,
          type: 'PAYMENT_DUE' as const,
          ...Messages.paymentDue(due.month, account.balancePaise, due.today),
          dedupeKey: `PAYMENT_DUE:${due.month}:${account.userId}`,
        })),
        { atomic: true },
      );
      return created.length;
    });
  }

  /**
   * Runs `recipientsOf` for each meal of today or tomorrow whose start is within `leadMinutes` of `now` (and not
   * past), and queues `type` for them.
   */
  /** Members whose approved leave covers the meal: no reminder, no confirmation. */
  private async onLeave(date: string, meal: MealTime): Promise<Set<string>> {
    return new Set(
      await this.leave.membersOnLeave(zonedInstant(date, meal.startTime, this.config.messTimezone)),
    );
  }

  private async forMealsStartingSoon(
    now: Date,
    leadMinutes: number,
    type: 'MEAL_REMINDER' | 'ATTENDANCE_CONFIRMATION',
    recipientsOf: (date: string, meal: MealTime) => Promise<string[]>,
  ): Promise<number> {
    const tz = this.config.messTimezone;
    const today = localParts(now, tz).date;
    const { mealTimes } = await this.messConfig.settings();
    let queued = 0;
    for (const date of [today, addDays(today, 1)]) {
      for (const meal of mealTimes) {
        const start = zonedInstant(date, meal.startTime, tz).getTime();
        if (now.getTime() < start - leadMinutes * 60_000 || now.getTime() >= start) continue;
        queued += await this.once(`${type}:${date}:${meal.name}`, async () => {
          const message =
            type === 'MEAL_REMINDER'
              ? Messages.mealReminder(meal, date)
              : Messages.attendanceConfirmation(meal, date);
          const created = await this.notifications.notify(
            (await recipientsOf(date, meal)).map((userId) => ({
              userId,
              type,
              ...message,
              dedupeKey: `${type}:${date}:${meal.name}:${userId}`,
            })),
            { atomic: true },
          );
          return created.length;
        });
      }
    }
    return queued;
  }

  /**
   * The month before `now` once its `day`-th day and the monthly time have come (in the mess time zone), on that
   * day or any later day of the month: a service that was down on the day catches up when it is back. The dedupe
   * keys make every later tick a no-op. `due` is the day it was meant for.
   */
  private monthlyDue(now: Date, day: number): { month: string; today: string } | undefined {
    const { date, time } = localParts(now, this.config.messTimezone);
    const dayOfMonth = Number(date.slice(8));
    const monthlyTime = this.config.notifications.schedules.monthlyTime;
    if (dayOfMonth < day || (dayOfMonth === day && time < monthlyTime)) return undefined;
    return {
      month: monthOf(addDays(`${monthOf(date)}-01`, -1)),
      today: `${monthOf(date)}-${String(day).padStart(2, '0')}`,
    };
  }

  private async billOf(month: string) {
    return this.available() ? this.bills!.bill(month) : undefined;
  }

  private available(): boolean {
    if (!this.bills && !this.warnedNoBills) {
      this.logger.warn('Monthly cost shares are not available, so COST_SUMMARY and PAYMENT_DUE are not sent');
      this.warnedNoBills = true;
    }
    return Boolean(this.bills);
  }

  private async once(window: string, run: () => Promise<number>): Promise<number> {
    const period = `${currentMessId()}:${window}`;
    if (this.handled.has(period)) return 0;
    const queued = await run();
    if (this.handled.size > 1_000) this.handled.clear();
    this.handled.add(period);
    if (queued) this.logger.log({ period, queued }, 'Scheduled notifications queued');
    return queued;
  }
}
