import { Injectable } from '@nestjs/common';
import { inMess } from '../../common/tenancy/mess-scope';
import { monthBounds } from '../../common/time/dates';
import { AccountsService } from '../accounts';
import { BillingService, MonthCache } from '../billing';
import { FeedbackQueries } from '../feedback';
import { MessConfigService } from '../mess-config';
import { AnalyticsService } from './analytics.service';
import { type MessMonthRow, totalsOf, type UniversityView } from './university-view';

type MonthFigures = Omit<MessMonthRow, 'mess' | 'duePaise'>;

/**
 * The university's view (`GET /analytics/messes`): a row per mess, each computed acting in that mess (row-level
 * security scopes every statement to it) by the very services that answer the mess's own analytics, so a row's
 * attendanceRate and healthScore are what that mess's dashboards show.
 */
@Injectable()
export class UniversityViewService {
  /** Messes computed at once: each takes a handful of statements, and the pool serves every other request too. */
  static readonly CONCURRENCY = 4;

  constructor(
    private readonly analytics: AnalyticsService,
    private readonly billing: BillingService,
    private readonly cache: MonthCache,
    private readonly feedback: FeedbackQueries,
    private readonly accounts: AccountsService,
    private readonly messConfig: MessConfigService,
  ) {}

  async view(monthInput?: string): Promise<UniversityView> {
    const month = this.analytics.resolveMonth(monthInput);
    const messes = await this.messConfig.listMesses(); // ordered by messName
    const rows = await mapInBatches(messes, UniversityViewService.CONCURRENCY, ({ _id, slug, messName }) =>
      inMess(_id, async (): Promise<MessMonthRow> => {
        const [figures, duePaise] = await Promise.all([this.figures(month), this.duePaise()]);
        return { mess: { _id, slug, messName }, ...figures, duePaise };
      }),
    );
    return { month, rows, totals: totalsOf(rows) };
  }

  /**
   * The month's figures of the mess the code runs for, cached with its analytics (dropped by the same writes). The
   * dues are not among them: they move with every payment, in any month.
   */
  private figures(month: string): Promise<MonthFigures> {
    return this.cache.get(`university-row:${month}`, [month], async () => {
      const { first, last } = monthBounds(month);
      const nested = { nested: true };
      const [attendance, health, bill, rating] = await Promise.all([
        this.analytics.attendanceAnalytics({ month }, nested),
        this.analytics.health(month, nested),
        this.billing.bill(month, 'proportional', nested),
        this.feedback.averageRating(first, last),
      ]);
      return {
        members: attendance.analytics.totalMembers,
        activeMembers: bill.bill.activeMembers,
        mealsServed: bill.bill.totalMeals,
        totalPaise: bill.bill.totalPaise,
        attendanceRate: attendance.analytics.attendanceRate,
        averageRating: rating.average === null ? null : Math.round(rating.average * 100) / 100,
        healthScore: health.healthScore.overallScore,
      };
    });
  }

  /** What the members owe the mess now: its positive balances added. */
  private async duePaise(): Promise<number> {
    const due = await this.accounts.dueBalances();
    return due.reduce((sum, account) => sum + account.balancePaise, 0);
  }
}

/** `work` over `items`, at most `size` at a time, answers in the items' order. */
async function mapInBatches<T, R>(
  items: readonly T[],
  size: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += size) {
    results.push(...(await Promise.all(items.slice(i, i + size).map(work))));
  }
  return results;
}
