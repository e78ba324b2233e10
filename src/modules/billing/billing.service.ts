import { Injectable } from '@nestjs/common';
import { badRequest } from '../../common/errors/api-error';
import { Clock } from '../../common/time/clock';
import { addDays, localParts, mealSpan, monthBounds, monthOf } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import type { DbOrTx } from '../../database/database';
import { AttendanceQueries } from '../attendance';
import { ExpensesQueries } from '../expenses';
import { ExtrasQueries } from '../extras';
import { LeaveCalendar } from '../leave-calendar';
import { type MealTime, MessConfigService } from '../mess-config';
import { MembershipPeriods, onRollsOn, type RollsSpan, UsersService } from '../users';
import { BillingRepository, MealTypeFigures, MessMonthFigures, MonthFigures } from './billing.repository';
import { computeShares, MemberMeals, MonthBill, ShareMethod } from './cost-shares';
import { computeDailyBill, DailyBill, DailyLeave, DailyRules, termStartOf } from './daily-charges';
import { MonthCache } from './month-cache';

/**
 * The frozen bill kept with a closed month: both meal methods and, for a mess with a daily rate, the daily rate's
 * (extension 2.3), with names as they were, and the method it charged.
 */
export interface FrozenBill {
  computedAt: string;
  names: Record<string, string>;
  bills: { spec: MonthBill; proportional: MonthBill; daily?: DailyBill };
  /** Absent on months closed before accounts existed (nothing was charged then). */
  chargeMethod?: ShareMethod;
  /** Each member's extras at the close, in paise; absent on months closed before extras existed (none). */
  extras?: Record<string, number>;
}

/** A month's bill under one method, in paise, with each member's name: what every bill view is made from. */
export interface BillView {
  month: string;
  /** A DailyBill under the daily rate (`method: 'daily'`). */
  bill: MonthBill;
  /** Each billed member's extras of the month in paise (diners only); members with none are absent. */
  extras: ReadonlyMap<string, number>;
  /** Names of every member on the bill: those with meals and those with extras only. */
  names: ReadonlyMap<string, string>;
  closed: boolean;
  computedAt: string;
}

/**
 * The monthly bill in paise: its inputs (the month's figures, kept by the database as the records are written), the
 * bill under either method (frozen for a closed month), cached until a write touches the month.
 */
@Injectable()
export class BillingService {
  constructor(
    private readonly repository: BillingRepository,
    private readonly cache: MonthCache,
    private readonly expenses: ExpensesQueries,
    private readonly attendance: AttendanceQueries,
    private readonly messConfig: MessConfigService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly extras: ExtrasQueries,
    private readonly periods: MembershipPeriods,
    private readonly leaves: LeaveCalendar,
    private readonly users: UsersService,
  ) {}

  /**
   * The repair tool (decision 0011): replaces the month's kept figures with a rebuild from the records, in one
   * transaction that holds the month's lock and pauses expense and attendance writes. Nothing on the write or the
   * read path calls it: the database keeps the figures in the transaction of every write.
   */
  async rebuild(month: string): Promise<void> {
    await this.repository.monthTransaction(month, { pauseWrites: true }, async (tx) => {
      await this.repository.replaceFigures(tx, month, await this.rebuiltFigures(month, tx));
    });
    this.cache.invalidate([month]);
  }

  /** The month's figures as a rebuild from the records gives them (what the kept ones must equal), rows in key order. */
  async rebuiltFigures(month: string, db?: DbOrTx): Promise<MonthFigures> {
    // One after the other: a transaction is one connection.
    const totalPaise = await this.expenses.monthTotal(month, db);
    const rows = await this.attendance.monthFiguresByMemberAndMeal(month, db);
    return { totalPaise, rows };
  }

  /** The month's figures as kept, rows with no mark left out, in key order. */
  keptFigures(month: string, db?: DbOrTx): Promise<MonthFigures> {
    return this.repository.keptFigures(month, db);
  }

  /** A whole month's meal figures per meal type, from the kept figures. */
  mealFigures(month: string): Promise<MealTypeFigures[]> {
    return this.repository.mealFigures(month);
  }

  /** The month's figures of every mess with a record in it (the university's view), by mess id: one read. */
  monthFiguresPerMess(month: string): Promise<Map<string, MessMonthFigures>> {
    return this.repository.monthFiguresPerMess(month);
  }

  /**
   * The month's bill under `method`: the frozen one of a closed month, else computed from the stored inputs.
   * `nested`: looked up while answering another cached answer, so the outer lookup alone counts as hit or miss.
   */
  async bill(month: string, method: ShareMethod, options: { nested?: boolean } = {}): Promise<BillView> {
    // The daily rate's bill also depends on the rate and rules: they are part of its key.
    const daily = method === 'daily' ? await this.dailyRules() : undefined;
    return this.cache.get(
      `bill:${month}:${daily ? dailyKey(daily) : method}`,
      [month],
      async (): Promise<BillView> => {
        const closure = await this.repository.findClosure(month);
        if (closure) {
          const frozen = closure.bill as FrozenBill;
          const names = new Map(Object.entries(frozen.names));
          let bill: MonthBill | undefined = method === 'daily' ? frozen.bills.daily : frozen.bills[method];
          if (!bill) {
            // A month closed before the mess had a daily rate: the daily bill as the rolls and leave stand now.
            const live = await this.dailyBill(
              month,
              frozen.bills.proportional.totalPaise,
              frozen.bills.proportional.shares,
              daily!,
            );
            bill = live.bill;
            for (const [id, name] of live.names) if (!names.has(id)) names.set(id, name);
          }
          return {
            month,
            bill,
            extras: new Map(Object.entries(frozen.extras ?? {})),
            names,
            closed: true,
            computedAt: frozen.computedAt,
          };
        }
        const snapshot = await this.repository.readMonth(month);
        const extras = await this.extrasOf(month);
        // The names came with the figures (the users module's memberNames).
        const names = new Map([
          ...extras.names,
          ...snapshot.members.map((m) => [m.userId, m.fullName] as const),
        ]);
        let bill: MonthBill;
        if (method === 'daily') {
          const computed = await this.dailyBill(month, snapshot.totalPaise, snapshot.members, daily!);
          bill = computed.bill;
          for (const [id, name] of computed.names) names.set(id, name);
        } else {
          bill = computeShares(snapshot.totalPaise, snapshot.members, method);
        }
        return {
          month,
          bill,
          extras: extras.paise,
          names,
          closed: false,
          // Computed now from figures current to the last committed write.
          computedAt: this.clock.now().toISOString(),
        };
      },
      options,
    );
  }

  /**
   * What a cached answer of the bill under `method` depends on besides the month's writes: the method, and under the
   * daily rate its rules (a change of rate or bands answers anew at once). 400 naming `method` as `bill` does.
   */
  async cacheKeyOf(method: ShareMethod): Promise<string> {
    return method === 'daily' ? dailyKey(await this.dailyRules()) : method;
  }

  /**
   * The daily rate's rules with the meal times its full leave days are judged by; 400 naming `method` when the mess
   * has no daily rate (extension 2.3).
   */
  async dailyRules(): Promise<DailyRules & { mealTimes: MealTime[] }> {
    const rules = await this.dailyRulesIfAny();
    if (!rules) {
      throw badRequest('Validation failed', [
        { field: 'method', message: 'method daily needs a dailyRate in the mess configuration' },
      ]);
    }
    return rules;
  }

  /** The daily rate's rules, or undefined when the mess has no daily rate. */
  async dailyRulesIfAny(): Promise<(DailyRules & { mealTimes: MealTime[] }) | undefined> {
    const settings = await this.messConfig.dailySettings();
    if (settings.dailyRatePaise === null) return undefined;
    return {
      ratePaise: settings.dailyRatePaise,
      bands: settings.rebateBands,
      daysPerTerm: settings.rebateDaysPerTerm,
      termStartMonths: settings.termStartMonths,
      mealTimes: (await this.messConfig.settings()).mealTimes,
    };
  }

  /**
   * The month's bill by the daily rate (extension 2.3): the rolls of the month's term so far and the approved leave in
   * it, read in `db` (the close's transaction) or outside; `meals`: the month's present marks per member (shown
   * beside the days, as the other methods' bills show them). Returns the bill and the names of its members.
   */
  async dailyBill(
    month: string,
    totalPaise: number,
    meals: readonly MemberMeals[],
    rules: DailyRules & { mealTimes: MealTime[] },
    db?: DbOrTx,
  ): Promise<{ bill: DailyBill; names: Map<string, string> }> {
    const { first, last } = monthBounds(month);
    const termStart = termStartOf(first, rules.termStartMonths);
    // One after the other: a transaction is one connection.
    const spans = await this.periods.rollsOverlapping(termStart, last, db);
    const leaveRows = await this.leaves.approvedBetweenDates(termStart, last, db);
    const spansOf = new Map<string, RollsSpan[]>();
    for (const span of spans) spansOf.set(span.userId, [...(spansOf.get(span.userId) ?? []), span]);
    const mealsOf = new Map(meals.map((m) => [m.userId, m.meals]));
    const ids = [...new Set([...spansOf.keys(), ...mealsOf.keys()])];
    const names = await this.users.namesOf(ids, db);
    const tz = this.config.messTimezone;
    const leaves: DailyLeave[] = leaveRows.map((leave) => {
      const from = leave.startsAt.getTime();
      const to = leave.endsAt.getTime();
      const fullDays: string[] = [];
      for (let date = leave.startDate; date <= leave.endDate; date = addDays(date, 1)) {
        const covered = rules.mealTimes.every((meal) => {
          const start = mealSpan(date, meal, tz).start.getTime();
          return start >= from && start < to;
        });
        if (covered) fullDays.push(date);
      }
      return {
        leaveId: leave.id,
        userId: leave.userId,
        startDate: leave.startDate,
        endDate: leave.endDate,
        startMealType: leave.startMealType,
        endMealType: leave.endMealType,
        createdAt: leave.createdAt,
        fullDays,
      };
    });
    const bill = computeDailyBill(
      month,
      totalPaise,
      ids.map((userId) => {
        const own = spansOf.get(userId) ?? [];
        return {
          userId,
          fullName: names.get(userId) ?? '',
          meals: mealsOf.get(userId) ?? 0,
          onRolls: (date: string) => onRollsOn(own, date),
        };
      }),
      leaves,
      rules,
    );
    return { bill, names };
  }

  /**
   * Each diner's extras of the month in paise, and their names, read through the extras module; `db`: the caller's
   * transaction (the close reads in it).
   */
  async extrasOf(
    month: string,
    db?: DbOrTx,
  ): Promise<{ paise: ReadonlyMap<string, number>; names: ReadonlyMap<string, string> }> {
    const rows = await this.extras.monthTotalsByMember(month, db);
    return {
      paise: new Map(rows.map((r) => [r.userId, r.amountPaise])),
      names: new Map(rows.map((r) => [r.userId, r.fullName])),
    };
  }

  /** Each member's extras of the month by item and unit price (the close itemises its charges with them). */
  extraItemsOf(month: string, db?: DbOrTx) {
    return this.extras.monthItemsByMember(month, db);
  }

  /** Of `months`, those that are closed (their bill frozen): leave that touches one is refused. */
  async closedAmong(months: string[]): Promise<string[]> {
    const closed = new Set(await this.repository.closedMonths());
    return months.filter((month) => closed.has(month));
  }

  /** When the month's last meal ends (its last day's latest meal end, in the mess's time zone). */
  async lastMealEnd(month: string): Promise<Date> {
    const { mealTimes } = await this.messConfig.settings();
    const last = monthBounds(month).last;
    return new Date(
      Math.max(...mealTimes.map((meal) => mealSpan(last, meal, this.config.messTimezone).end.getTime())),
    );
  }

  /** The mess's `chargeMethod`: what a close posts, and the bill endpoints' default. */
  async chargeMethod(): Promise<ShareMethod> {
    return (await this.messConfig.settings()).chargeMethod;
  }

  /** This month in the mess's time zone when none is given. */
  resolveMonth(month?: string): string {
    return month ?? monthOf(this.today());
  }

  today(): string {
    return localParts(this.clock.now(), this.config.messTimezone).date;
  }
}

/** What the daily rate's bill depends on besides the month's writes: in its cache keys. */
export const dailyKey = (rules: DailyRules & { mealTimes: MealTime[] }): string =>
  `daily:${rules.ratePaise}:${rules.daysPerTerm}:${rules.termStartMonths.join('.')}:${rules.bands
    .map((b) => `${b.minDays}-${b.percent}`)
    .join('.')}:${rules.mealTimes.map((m) => `${m.startTime}`).join('.')}`;
