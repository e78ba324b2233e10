import { Injectable } from '@nestjs/common';
import { badRequest } from '../../common/errors/api-error';
import { toRupees } from '../../common/money/money';
import { mealSpan, monthBounds, monthOf, monthsBetween } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import { AttendanceQueries } from '../attendance';
import { BillingService, MonthCache } from '../billing';
import { ExpensesQueries } from '../expenses';
import { FeedbackQueries } from '../feedback';
import { LeaveCalendar } from '../leave-calendar';
import { MessConfigService } from '../mess-config';
import { UsersService } from '../users';
import type {
  AttendanceAnalyticsResponse,
  ExpenseAnalyticsResponse,
  HeadcountResponse,
  HealthScoreResponse,
} from './dto/analytics.dto';
import { attendanceRate, healthScore, mealSpread } from './health-score';

const round = (n: number, digits: number) => Number(n.toFixed(digits));

/** The dashboards: spending, attendance, the health score and the kitchen headcount. The bill is billing's. */
@Injectable()
export class AnalyticsService {
  constructor(
    private readonly billing: BillingService,
    private readonly cache: MonthCache,
    private readonly expenses: ExpensesQueries,
    private readonly attendance: AttendanceQueries,
    private readonly feedback: FeedbackQueries,
    private readonly users: UsersService,
    private readonly messConfig: MessConfigService,
    private readonly leave: LeaveCalendar,
    private readonly config: AppConfig,
  ) {}

  /** An answer from billing's month cache, or computed here and kept there (the cache never runs this module's code). */
  private async cached<T>(
    key: string,
    months: string[],
    compute: () => Promise<T>,
    options: { nested?: boolean } = {},
  ): Promise<T> {
    const found = this.cache.lookup<T>(key, months, options);
    if (found.hit) return found.value;
    return this.cache.keep(found, await compute());
  }

  // ---- the contract's analytics ----

  async expenseAnalytics(query: { month?: string; year?: string }): Promise<ExpenseAnalyticsResponse> {
    const months = query.month
      ? [query.month]
      : monthsBetween(
          `${query.year ?? this.today().slice(0, 4)}-01`,
          `${query.year ?? this.today().slice(0, 4)}-12`,
        );
    return this.cached(`expenses:${months[0]}:${months.at(-1)}`, months, async () => {
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

  /** `options.nested`: looked up while computing another cached answer (the university's view). */
  async attendanceAnalytics(
    query: {
      month?: string;
      startDate?: string;
      endDate?: string;
    },
    options: { nested?: boolean } = {},
  ): Promise<AttendanceAnalyticsResponse> {
    const { from, to } = this.period(query);
    const months = monthsBetween(monthOf(from), monthOf(to));
    return this.cached(
      `attendance:${from}:${to}`,
      months,
      async () => {
        const wholeMonth = !query.startDate;
        const [totalMembers, figures, settings] = await Promise.all([
          this.users.countDiners(),
          wholeMonth ? this.billing.mealFigures(monthOf(from)) : this.attendance.mealTypeFigures(from, to),
          this.messConfig.settings(),
        ]);
        const counts = figures;
        const present = new Map(figures.map((c) => [c.mealType, c.present]));
        const served = new Map(figures.map((s) => [s.mealType, s.servedSlots]));
        const presentMarks = counts.reduce((sum, c) => sum + c.present, 0);
        const servedSlots = figures.reduce((sum, s) => sum + s.servedSlots, 0);
        const rate = (p: number, s: number) => attendanceRate(p, totalMembers, s);
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
      },
      options,
    );
  }

  async health(monthInput?: string, options: { nested?: boolean } = {}): Promise<HealthScoreResponse> {
    const month = monthInput ?? monthOf(this.today());
    return this.cached(
      `health:${month}`,
      [month],
      async () => {
        const { first, last } = monthBounds(month);
        const [rating, figures, approvedMembers, bill] = await Promise.all([
          this.feedback.averageRating(first, last),
          this.billing.mealFigures(month),
          this.users.countDiners(),
          this.billing.bill(month, 'proportional', { nested: true }),
        ]);
        return {
          success: true,
          month,
          healthScore: healthScore({
            averageRating: rating.average,
            presentMarks: figures.reduce((sum, c) => sum + c.present, 0),
            approvedMembers,
            servedSlots: figures.reduce((sum, s) => sum + s.servedSlots, 0),
            mealSpread: mealSpread(bill.bill.shares.map((s) => s.meals)),
          }),
        };
      },
      options,
    );
  }

  /** `names`: each meal also names its unmarked diners (the roster's names, read in one more round). */
  async headcount(dateInput?: string, names = false): Promise<HeadcountResponse> {
    const date = dateInput ?? this.today();
    return this.cached(`headcount:${date}:${names}`, [monthOf(date)], async () => {
      // Two rounds of reads, whatever the number of meals: the day's figures, then the marks of those on leave.
      const [diners, counts, settings, dinerIds] = await Promise.all([
        this.users.countDiners(),
        this.attendance.presentCountsByMealType(date, date),
        this.messConfig.settings(),
        names ? this.users.dinerIds() : Promise.resolve([]),
      ]);
      const away = await this.leave.membersOnLeaveAt(
        settings.mealTimes.map((meal) => mealSpan(date, meal, this.config.messTimezone).start),
      );
      const [marked, dinerNames] = await Promise.all([
        this.attendance.markedAmong(date, [...new Set(names ? [...away.flat(), ...dinerIds] : away.flat())]),
        names ? this.users.namesOf(dinerIds) : Promise.resolve(new Map<string, string>()),
      ]);
      const byType = new Map(counts.map((c) => [c.mealType, c]));
      const meals = settings.mealTimes.map((meal, i) => {
        const c = byType.get(meal.name);
        const expected = c?.present ?? 0;
        const absent = c?.absent ?? 0;
        // Members on leave are not waited for: only those of them who have not marked leave `unmarked`.
        const markedMeal = marked.get(meal.name);
        const awayUnmarked = away[i].filter((id) => !markedMeal?.has(id)).length;
        const slot = {
          mealType: meal.name,
          startTime: meal.startTime,
          expected,
          absent,
          onLeave: away[i].length,
          unmarked: Math.max(0, diners - expected - absent - awayUnmarked),
        };
        if (!names) return slot;
        const onLeave = new Set(away[i]);
        const unmarkedMembers = dinerIds
          .filter((id) => !markedMeal?.has(id) && !onLeave.has(id))
          .map((id) => ({ _id: id, fullName: dinerNames.get(id) ?? '' }))
          .sort((a, b) => a.fullName.localeCompare(b.fullName) || a._id.localeCompare(b._id));
        return { ...slot, unmarkedMembers };
      });
      return { success: true as const, date, approvedMembers: diners, meals };
    });
  }

  // ---- periods ----

  /** This month in the mess's time zone when none is given. */
  resolveMonth(month?: string): string {
    return this.billing.resolveMonth(month);
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

  private today(): string {
    return this.billing.today();
  }
}
