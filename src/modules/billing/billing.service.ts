import { Injectable, OnModuleInit } from '@nestjs/common';
import { inMess } from '../../common/tenancy/mess-scope';
import { Clock } from '../../common/time/clock';
import { localParts, mealSpan, monthBounds, monthOf } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import type { DbOrTx } from '../../database/database';
import { AttendanceQueries } from '../attendance';
import { ExpensesQueries } from '../expenses';
import { ExtrasQueries } from '../extras';
import { MessConfigService } from '../mess-config';
import { BillingRepository, MealTypeFigures, MessMonthFigures, MonthInputs } from './billing.repository';
import { computeShares, MonthBill, ShareMethod } from './cost-shares';
import { MonthCache } from './month-cache';
import { ShareRecalculator } from './share-recalculator';

/** The frozen bill kept with a closed month: both methods, with names as they were, and the method it charged. */
export interface FrozenBill {
  computedAt: string;
  names: Record<string, string>;
  bills: Record<ShareMethod, MonthBill>;
  /** Absent on months closed before accounts existed (nothing was charged then). */
  chargeMethod?: ShareMethod;
  /** Each member's extras at the close, in paise; absent on months closed before extras existed (none). */
  extras?: Record<string, number>;
}

/** A month's bill under one method, in paise, with each member's name: what every bill view is made from. */
export interface BillView {
  month: string;
  bill: MonthBill;
  /** Each billed member's extras of the month in paise (diners only); members with none are absent. */
  extras: ReadonlyMap<string, number>;
  /** Names of every member on the bill: those with meals and those with extras only. */
  names: ReadonlyMap<string, string>;
  closed: boolean;
  computedAt: string;
}

/**
 * The monthly bill in paise: its inputs (rebuilt from the owners' read-only queries by the recalculator), the bill
 * under either method (frozen for a closed month), cached until a write touches the month.
 */
@Injectable()
export class BillingService implements OnModuleInit {
  constructor(
    private readonly repository: BillingRepository,
    private readonly recalculator: ShareRecalculator,
    private readonly cache: MonthCache,
    private readonly expenses: ExpensesQueries,
    private readonly attendance: AttendanceQueries,
    private readonly messConfig: MessConfigService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly extras: ExtrasQueries,
  ) {}

  onModuleInit(): void {
    this.recalculator.use((month) => this.recalculate(month));
    // Another replica's write: its months' stored inputs are rebuilt there, but a reader here must not wait for it.
    this.cache.onRemoteInvalidation((months) => months !== 'all' && this.recalculator.markStale(months));
  }

  /**
   * Rebuilds a month's bill inputs and meal figures from the owners' read-only queries, in one transaction that
   * holds the month's lock (two replicas rebuilding one month take turns). A closed month is rebuilt too: the
   * database refuses every write into it, so its rows give exactly the figures the close stored and froze.
   */
  async recalculate(month: string): Promise<void> {
    await this.repository.monthTransaction(month, { pauseWrites: false }, async (tx) => {
      await this.repository.replaceMonth(tx, month, await this.readInputs(month, tx));
    });
    // No cache invalidation here: the writes that made the month dirty invalidated it already, and doing it again
    // would keep the answer that is waiting for this very rebuild out of the cache.
  }

  /** The month's bill inputs and meal figures, read in the caller's transaction. */
  async readInputs(month: string, tx: DbOrTx): Promise<MonthInputs> {
    const { first, last } = monthBounds(month);
    // One after the other: a transaction is one connection.
    const totalPaise = await this.expenses.monthTotal(month, tx);
    const members = await this.attendance.presentCountsByMember(month, tx);
    const mealTypes = await this.attendance.mealTypeFigures(first, last, tx);
    return { totalPaise, members, mealTypes };
  }

  /** A whole month's meal figures per meal type, from the stored inputs (rebuilt first when stale or missing). */
  async mealFigures(month: string): Promise<MealTypeFigures[]> {
    await this.recalculator.ensureFresh(month);
    let figures = await this.repository.readMealCounts(month);
    if (!figures) {
      await this.recalculator.ensureFresh(month, true);
      figures = await this.repository.readMealCounts(month);
    }
    return figures ?? [];
  }

  /**
   * The month's figures of each of `messIds` (the university's view), by mess id. Each mess's stored inputs are
   * brought up to date first (an in-memory check where nothing changed; at most FRESHEN_AT_ONCE messes rebuilt at a
   * time), then one read across messes answers them all.
   */
  async monthFiguresPerMess(
    month: string,
    messIds: readonly string[],
  ): Promise<Map<string, MessMonthFigures>> {
    await this.freshen(month, messIds, false);
    let figures = await this.repository.monthFiguresPerMess(month);
    const never = messIds.filter((id) => !figures.has(id));
    if (never.length) {
      await this.freshen(month, never, true);
      figures = await this.repository.monthFiguresPerMess(month);
    }
    return figures;
  }

  static readonly FRESHEN_AT_ONCE = 4;

  private async freshen(month: string, messIds: readonly string[], force: boolean): Promise<void> {
    for (let i = 0; i < messIds.length; i += BillingService.FRESHEN_AT_ONCE) {
      await Promise.all(
        messIds
          .slice(i, i + BillingService.FRESHEN_AT_ONCE)
          .map((id) => inMess(id, () => this.recalculator.ensureFresh(month, force))),
      );
    }
  }

  /**
   * The month's bill under `method`: the frozen one of a closed month, else computed from the stored inputs.
   * `nested`: looked up while answering another cached answer, so the outer lookup alone counts as hit or miss.
   */
  bill(month: string, method: ShareMethod, options: { nested?: boolean } = {}): Promise<BillView> {
    return this.cache.get(
      `bill:${month}:${method}`,
      [month],
      async (): Promise<BillView> => {
        const closure = await this.repository.findClosure(month);
        if (closure) {
          const frozen = closure.bill as FrozenBill;
          return {
            month,
            bill: frozen.bills[method],
            extras: new Map(Object.entries(frozen.extras ?? {})),
            names: new Map(Object.entries(frozen.names)),
            closed: true,
            computedAt: frozen.computedAt,
          };
        }
        const snapshot = await this.freshSnapshot(month);
        const extras = await this.extrasOf(month);
        return {
          month,
          bill: computeShares(snapshot.totalPaise, snapshot.members, method),
          extras: extras.paise,
          // The names came with the figures (the users module's memberNames).
          names: new Map([...extras.names, ...snapshot.members.map((m) => [m.userId, m.fullName] as const)]),
          closed: false,
          computedAt: snapshot.computedAt.toISOString(),
        };
      },
      options,
    );
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

  /** The mess's `chargeMethod`: what a close posts, and the bill endpoints' default. */
  /** When the month's last meal ends (its last day's latest meal end, in the mess's time zone). */
  async lastMealEnd(month: string): Promise<Date> {
    const { mealTimes } = await this.messConfig.settings();
    const last = monthBounds(month).last;
    return new Date(
      Math.max(...mealTimes.map((meal) => mealSpan(last, meal, this.config.messTimezone).end.getTime())),
    );
  }

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

  private async freshSnapshot(month: string) {
    await this.recalculator.ensureFresh(month);
    let snapshot = await this.repository.readMonth(month);
    if (!snapshot) {
      await this.recalculator.ensureFresh(month, true);
      snapshot = await this.repository.readMonth(month);
    }
    return snapshot!;
  }
}
