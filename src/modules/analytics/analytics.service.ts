import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { AppConfig } from '../../config/app-config';
import { badRequest, conflict } from '../../common/errors/api-error';
import {
  DomainEvents,
  type AttendanceEvent,
  type ExpenseEvent,
  type FeedbackEvent,
  type LeaveEvent,
} from '../../common/events/domain-events';
import { toRupees } from '../../common/money/money';
import { Clock } from '../../common/time/clock';
import { localParts, mealSpan, monthBounds, monthOf, monthsBetween } from '../../common/time/dates';
import { AttendanceQueries } from '../attendance/attendance.queries';
import { ExpensesQueries } from '../expenses/expenses.queries';
import { FeedbackQueries } from '../feedback/feedback.queries';
import { MessConfigService } from '../mess-config/mess-config.service';
import { UsersService } from '../users/users.service';
import { LeaveCalendar } from '../leave/leave-calendar';
import { AnalyticsCache } from './analytics-cache';
import type { DbOrTx } from '../../database/database';
import { AnalyticsRepository, MonthInputs } from './analytics.repository';
import { computeShares, MonthBill, SHARE_METHODS, ShareMethod } from './cost-shares';
import type {
  AttendanceAnalyticsResponse,
  BillDto,
  ExpenseAnalyticsResponse,
  HeadcountResponse,
  HealthScoreResponse,
  MonthStatusResponse,
  MyShareResponse,
} from './dto/analytics.dto';
import { healthScore } from './health-score';
import { ShareRecalculator } from './share-recalculator';

/** The frozen bill kept with a closed month: both methods, with names as they were. */
interface FrozenBill {
  computedAt: string;
  names: Record<string, string>;
  bills: Record<ShareMethod, MonthBill>;
}

const round = (n: number, digits: number) => Number(n.toFixed(digits));

@Injectable()
export class AnalyticsService implements OnModuleInit {
  private readonly logger = new Logger(AnalyticsService.name);

  constructor(
    private readonly repository: AnalyticsRepository,
    private readonly recalculator: ShareRecalculator,
    private readonly cache: AnalyticsCache,
    private readonly expenses: ExpensesQueries,
    private readonly attendance: AttendanceQueries,
    private readonly feedback: FeedbackQueries,
    private readonly users: UsersService,
    private readonly messConfig: MessConfigService,
    private readonly leave: LeaveCalendar,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.recalculator.use((month) => this.recalculate(month));
  }

  // ---- reacting to writes ----

  @OnEvent(DomainEvents.ExpenseRecorded)
  @OnEvent(DomainEvents.ExpenseChanged)
  @OnEvent(DomainEvents.ExpenseDeleted)
  onExpense(event: ExpenseEvent): void {
    this.touch(event.months);
  }

  @OnEvent(DomainEvents.AttendanceMarked)
  onAttendance(event: AttendanceEvent): void {
    this.touch([event.month]);
  }

  /** A rating changes the month's meal quality; the bill does not depend on it. */
  @OnEvent(DomainEvents.FeedbackSubmitted)
  onFeedback(event: FeedbackEvent): void {
    this.cache.invalidate([monthOf(event.date)]);
  }

  /** Approvals, rejections, role and dining changes move `totalMembers` (and the headcount) of every month. */
  @OnEvent(DomainEvents.MemberChanged)
  onMemberChanged(): void {
    this.cache.invalidateAll();
  }

  /** A decided or cancelled leave moves the headcount's `onLeave` of its days. */
  @OnEvent(DomainEvents.LeaveDecided)
  onLeaveDecided(event: LeaveEvent): void {
    this.cache.invalidate(monthsBetween(monthOf(event.startDate), monthOf(event.endDate)));
  }

  private touch(months: string[]): void {
    this.cache.invalidate(months);
    this.recalculator.markDirty(months);
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
  private async readInputs(month: string, tx: DbOrTx): Promise<MonthInputs> {
    const { first, last } = monthBounds(month);
    // One after the other: a transaction is one connection.
    const totalPaise = await this.expenses.monthTotal(month, tx);
    const members = await this.attendance.presentCountsByMember(month, tx);
    const mealTypes = await this.attendance.mealTypeFigures(first, last, tx);
    return { totalPaise, members, mealTypes };
  }

  /** A whole month's meal figures from the stored inputs (rebuilt first when stale or missing). */
  private async monthMealFigures(month: string) {
    await this.recalculator.ensureFresh(month);
    let figures = await this.repository.readMealCounts(month);
    if (!figures) {
      await this.recalculator.ensureFresh(month, true);
      figures = await this.repository.readMealCounts(month);
    }
    return figures ?? [];
  }

  // ---- the bill ----

  bill(month: string, method: ShareMethod): Promise<BillDto> {
    return this.cachedBill(month, method, false);
  }

  /** `nested`: looked up while answering another cached answer, so the outer lookup alone counts as hit or miss. */
  private cachedBill(month: string, method: ShareMethod, nested: boolean): Promise<BillDto> {
    return this.cache.get(
      `bill:${month}:${method}`,
      [month],
      async () => {
        const closure = await this.repository.findClosure(month);
        if (closure) {
          const frozen = closure.bill as FrozenBill;
          return this.toBillDto(
            month,
            frozen.bills[method],
            (id) => frozen.names[id],
            true,
            frozen.computedAt,
          );
        }
        const snapshot = await this.freshSnapshot(month);
        // The names came in the same statement (the users module's memberNames); a Map keeps lookups fast.
        const names = new Map(snapshot.members.map((m) => [m.userId, m.fullName]));
        const bill = computeShares(snapshot.totalPaise, snapshot.members, method);
        return this.toBillDto(month, bill, (id) => names.get(id), false, snapshot.computedAt.toISOString());
      },
      { nested },
    );
  }

  async myShare(userId: string, month: string, method: ShareMethod): Promise<MyShareResponse> {
    const bill = await this.bill(month, method);
    const line = bill.shares.find((s) => s.userId === userId);
    return {
      success: true,
      month,
      method,
      closed: bill.closed,
      meals: line?.meals ?? 0,
      share: line?.share ?? 0,
      totalExpenses: bill.totalExpenses,
      activeMembers: bill.activeMembers,
      totalMeals: bill.totalMeals,
    };
  }

  /** The bill response already serialised: a cached answer then costs no JSON encoding of 2,000 lines. */
  billJson(month: string, method: ShareMethod): Promise<string> {
    return this.cache.get(`bill.json:${month}:${method}`, [month], async () =>
      JSON.stringify({ success: true, ...(await this.cachedBill(month, method, true)) }),
    );
  }

  /** The bill as CSV: UTF-8 with a byte-order mark (spreadsheets read it as UTF-8), one row per member. */
  billCsv(month: string, method: ShareMethod): Promise<string> {
    return this.cache.get(`bill.csv:${month}:${method}`, [month], () => this.renderCsv(month, method));
  }

  private async renderCsv(month: string, method: ShareMethod): Promise<string> {
    const bill = await this.cachedBill(month, method, true);
    const rows = [
      ['month', 'member_id', 'full_name', 'meals', 'share_inr', 'method', 'closed'],
      ...bill.shares.map((s) => [
        month,
        s.userId,
        s.fullName,
        String(s.meals),
        s.share.toFixed(2),
        method,
        String(bill.closed),
      ]),
    ];
    return `\uFEFF${rows.map((row) => row.map(csvCell).join(',')).join('\r\n')}\r\n`;
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

  private toBillDto(
    month: string,
    bill: MonthBill,
    nameOf: (userId: string) => string | undefined,
    closed: boolean,
    computedAt: string,
  ): BillDto {
    return {
      month,
      method: bill.method,
      totalExpenses: toRupees(bill.totalPaise),
      activeMembers: bill.activeMembers,
      totalMeals: bill.totalMeals,
      allocated: toRupees(bill.allocatedPaise),
      unallocated: toRupees(bill.unallocatedPaise),
      closed,
      computedAt,
      shares: bill.shares.map((s) => ({
        userId: s.userId,
        fullName: nameOf(s.userId) ?? '',
        meals: s.meals,
        share: toRupees(s.sharePaise),
      })),
    };
  }

  // ---- closing a month ----

  /**
   * One transaction, on both engines, holding the month's lock and pausing expense and attendance writes: the bill's
   * reads, the month's stored inputs (so attendance and health figures agree with the frozen bill) and the closure
   * with its log row commit together. Every read runs on the transaction, never on another pooled connection.
   */
  async close(month: string, actorId: string): Promise<BillDto> {
    this.assertNotFuture(month, 'A month that has not begun cannot be closed');
    await this.repository.monthTransaction(month, { pauseWrites: true }, async (tx) => {
      if (await this.repository.findClosure(month, tx)) throw conflict(`Month ${month} is already closed`);
      const inputs = await this.readInputs(month, tx);
      const names = await this.users.namesOf(
        inputs.members.map((m) => m.userId),
        tx,
      );
      const frozen: FrozenBill = {
        computedAt: this.clock.now().toISOString(),
        names: Object.fromEntries(names),
        bills: {
          spec: computeShares(inputs.totalPaise, inputs.members, 'spec'),
          proportional: computeShares(inputs.totalPaise, inputs.members, 'proportional'),
        },
      };
      await this.repository.replaceMonth(tx, month, inputs);
      await this.repository.insertClosure(tx, month, actorId, frozen);
    });
    this.cache.invalidate([month]);
    this.logger.log({ month, by: actorId }, 'Month closed; its bill is frozen');
    return this.bill(month, 'spec');
  }

  async reopen(month: string, actorId: string): Promise<MonthStatusResponse> {
    if (!(await this.repository.deleteClosure(month, actorId)))
      throw conflict(`Month ${month} is not closed`);
    this.cache.invalidate([month]);
    this.recalculator.markDirty([month]);
    this.logger.log({ month, by: actorId }, 'Month reopened');
    return this.monthStatus(month);
  }

  async monthStatus(month: string): Promise<MonthStatusResponse> {
    const [closure, log] = await Promise.all([
      this.repository.findClosure(month),
      this.repository.closeLog(month),
    ]);
    const actorIds = [...new Set(log.flatMap((e) => (e.actorId ? [e.actorId] : [])))];
    const names = await this.users.namesOf(actorIds);
    return {
      success: true,
      month,
      closed: Boolean(closure),
      history: log.map((e) => ({
        action: e.action,
        at: e.at.toISOString(),
        by: e.actorId,
        byName: (e.actorId && names.get(e.actorId)) ?? null,
      })),
    };
  }

  // ---- the contract's analytics ----

  async expenseAnalytics(query: { month?: string; year?: string }): Promise<ExpenseAnalyticsResponse> {
    const months = query.month
      ? [query.month]
      : monthsBetween(
          `${query.year ?? this.today().slice(0, 4)}-01`,
          `${query.year ?? this.today().slice(0, 4)}-12`,
        );
    return this.cache.get(`expenses:${months[0]}:${months.at(-1)}`, months, async () => {
      const from = monthBounds(months[0]).first;
      const to = monthBounds(months.at(-1)!).last;
      const [byMonth, byCategory] = await Promise.all([
        this.expenses.totalsByMonth(from, to),
        this.expenses.categoryTotals(from, to),
      ]);
      const perMonth = new Map(byMonth.map((m) => [m.month, m.totalPaise]));
      const totalPaise = byMonth.reduce((sum, m) => sum + m.totalPaise, 0);
      const current = monthOf(this.today());
      const begun = Math.max(1, months.filter((m) => m <= current).length);
      return {
        success: true,
        analytics: {
          totalExpenses: toRupees(totalPaise),
          monthlyAverage: Math.round(totalPaise / begun) / 100,
          categoryBreakdown: Object.fromEntries(byCategory.map((c) => [c.category, toRupees(c.totalPaise)])),
          trend: months.map((month) => ({ month, amount: toRupees(perMonth.get(month) ?? 0) })),
        },
      };
    });
  }

  async attendanceAnalytics(query: {
    month?: string;
    startDate?: string;
    endDate?: string;
  }): Promise<AttendanceAnalyticsResponse> {
    const { from, to } = this.period(query);
    const months = monthsBetween(monthOf(from), monthOf(to));
    return this.cache.get(`attendance:${from}:${to}`, months, async () => {
      const wholeMonth = !query.startDate;
      const [totalMembers, figures, settings] = await Promise.all([
        this.users.countDiners(),
        wholeMonth ? this.monthMealFigures(monthOf(from)) : this.attendance.mealTypeFigures(from, to),
        this.messConfig.settings(),
      ]);
      const counts = figures;
      const present = new Map(figures.map((c) => [c.mealType, c.present]));
      const served = new Map(figures.map((s) => [s.mealType, s.servedSlots]));
      const presentMarks = counts.reduce((sum, c) => sum + c.present, 0);
      const servedSlots = figures.reduce((sum, s) => sum + s.servedSlots, 0);
      const rate = (p: number, s: number) =>
        totalMembers * s === 0 ? 0 : round(Math.min(1, p / (totalMembers * s)), 4);
      const mealTypes = [...new Set([...settings.mealTimes.map((m) => m.name), ...present.keys()])];
      return {
        success: true,
        analytics: {
          totalMembers,
          averageAttendance: servedSlots === 0 ? 0 : round(presentMarks / servedSlots, 2),
          attendanceRate: rate(presentMarks, servedSlots),
          byMealType: Object.fromEntries(
            mealTypes.map((mt) => [mt, rate(present.get(mt) ?? 0, served.get(mt) ?? 0)]),
          ),
          presentMarks,
          servedSlots,
          period: { from, to },
        },
      };
    });
  }

  async health(monthInput?: string): Promise<HealthScoreResponse> {
    const month = monthInput ?? monthOf(this.today());
    return this.cache.get(`health:${month}`, [month], async () => {
      const { first, last } = monthBounds(month);
      const [rating, figures, approvedMembers, bill] = await Promise.all([
        this.feedback.averageRating(first, last),
        this.monthMealFigures(month),
        this.users.countDiners(),
        this.cachedBill(month, 'proportional', true),
      ]);
      return {
        success: true,
        month,
        healthScore: healthScore({
          averageRating: rating.average,
          presentMarks: figures.reduce((sum, c) => sum + c.present, 0),
          approvedMembers,
          servedSlots: figures.reduce((sum, s) => sum + s.servedSlots, 0),
          mealsPerActiveMember: bill.shares.map((s) => s.meals),
        }),
      };
    });
  }

  async headcount(dateInput?: string): Promise<HeadcountResponse> {
    const date = dateInput ?? this.today();
    return this.cache.get(`headcount:${date}`, [monthOf(date)], async () => {
      const [diners, counts, settings] = await Promise.all([
        this.users.countDiners(),
        this.attendance.presentCountsByMealType(date, date),
        this.messConfig.settings(),
      ]);
      const byType = new Map(counts.map((c) => [c.mealType, c]));
      const meals = [];
      for (const meal of settings.mealTimes) {
        const c = byType.get(meal.name);
        const expected = c?.present ?? 0;
        const absent = c?.absent ?? 0;
        const away = await this.leave.membersOnLeave(mealSpan(date, meal, this.config.messTimezone).start);
        // Members on leave are not waited for: only those of them who have not marked leave `unmarked`.
        const awayUnmarked = away.length - (await this.attendance.markedCountAmong(date, meal.name, away));
        meals.push({
          mealType: meal.name,
          startTime: meal.startTime,
          expected,
          absent,
          onLeave: away.length,
          unmarked: Math.max(0, diners - expected - absent - awayUnmarked),
        });
      }
      return { success: true as const, date, approvedMembers: diners, meals };
    });
  }

  /** Of `months`, those that are closed (their bill frozen): leave that touches one is refused. */
  async closedAmong(months: string[]): Promise<string[]> {
    const closed = new Set(await this.repository.closedMonths());
    return months.filter((month) => closed.has(month));
  }

  // ---- periods ----

  /** This month in the mess's time zone when none is given. */
  resolveMonth(month?: string): string {
    return month ?? monthOf(this.today());
  }

  private period(query: { month?: string; startDate?: string; endDate?: string }): {
    from: string;
    to: string;
  } {
    if (query.startDate || query.endDate) {
      if (!query.startDate || !query.endDate) {
        throw badRequest('Validation failed', [
          { field: query.startDate ? 'endDate' : 'startDate', message: 'startDate and endDate go together' },
        ]);
      }
      if (query.month)
        throw badRequest('Validation failed', [
          { field: 'month', message: 'give month or startDate/endDate, not both' },
        ]);
      if (query.startDate > query.endDate)
        throw badRequest('Validation failed', [
          { field: 'endDate', message: 'endDate must not be before startDate' },
        ]);
      if (monthsBetween(monthOf(query.startDate), monthOf(query.endDate)).length > 24) {
        throw badRequest('Validation failed', [
          { field: 'endDate', message: 'a period covers at most 24 months' },
        ]);
      }
      return { from: query.startDate, to: query.endDate };
    }
    const { first, last } = monthBounds(this.resolveMonth(query.month));
    return { from: first, to: last };
  }

  private assertNotFuture(month: string, message: string): void {
    if (month > monthOf(this.today())) throw badRequest(message);
  }

  private today(): string {
    return localParts(this.clock.now(), this.config.messTimezone).date;
  }

  static readonly methods = SHARE_METHODS;
}

/** Quotes when needed, and defuses cells a spreadsheet would run as a formula. */
function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n']/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
