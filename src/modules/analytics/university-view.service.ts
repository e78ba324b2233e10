import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/time/clock';
import { addDays, localParts, monthBounds } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import { AccountsService } from '../accounts';
import { BillingService, MonthCache, type MessMonthFigures } from '../billing';
import { FeedbackQueries } from '../feedback';
import { KitchenQueries } from '../kitchen';
import { MessDirectory } from '../messes';
import { UsersService } from '../users';
import { AnalyticsService } from './analytics.service';
import { attendanceRate, healthScore } from './health-score';
import { type MessMonthRow, totalsOf, type UniversityView } from './university-view';

type MonthFigures = Omit<
  MessMonthRow,
  'mess' | 'duePaise' | 'expectedPlatesTomorrow' | 'leftoverGramsPerDiner'
>;

/**
 * The university's view (`GET /analytics/messes`): a row per mess from a handful of grouped reads across messes
 * (row-level security's reader role), whatever the number of messes: each owner module answers its figures of every
 * mess at once (the month's stored bill inputs and meal counts, the diners, the ratings, the balances). A row's
 * attendanceRate and healthScore are computed by the same functions, from the same figures, as that mess's own
 * analytics.
 */
@Injectable()
export class UniversityViewService {
  constructor(
    private readonly analytics: AnalyticsService,
    private readonly billing: BillingService,
    private readonly cache: MonthCache,
    private readonly feedback: FeedbackQueries,
    private readonly accounts: AccountsService,
    private readonly users: UsersService,
    private readonly directory: MessDirectory,
    private readonly kitchen: KitchenQueries,
    private readonly clock: Clock,
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

  async view(monthInput?: string): Promise<UniversityView> {
    const month = this.analytics.resolveMonth(monthInput);
    // The directory's labels (cached, dropped with every change of a mess): ordered by messName, then slug.
    const messes = [...(await this.directory.labels()).values()].sort(
      (a, b) => a.messName.localeCompare(b.messName) || a.slug.localeCompare(b.slug),
    );
    const tomorrow = addDays(localParts(this.clock.now(), this.config.messTimezone).date, 1);
    // The kitchen's figures, like the dues, move outside the month's writes: read each time (two grouped reads).
    const [figures, due, plates, leftovers] = await Promise.all([
      this.figures(
        month,
        messes.map((m) => m._id),
      ),
      this.accounts.duePerMess(),
      this.kitchen.expectedPlatesPerMess(tomorrow),
      this.kitchen.leftoverPerDinerPerMess(month),
    ]);
    const rows = messes.map(({ _id, slug, messName }): MessMonthRow => ({
      mess: { _id, slug, messName },
      ...(figures.get(_id) ?? EMPTY),
      duePaise: due.get(_id) ?? 0,
      expectedPlatesTomorrow: plates.get(_id) ?? null,
      leftoverGramsPerDiner: leftovers.get(_id) ?? null,
    }));
    return { month, rows, totals: totalsOf(rows) };
  }

  /**
   * Every mess's month figures, cached with the analytics: any write to the month, in any mess, drops them. The dues
   * are not among them: they move with every payment, in any month (and are one indexed read of the balances).
   */
  private async figures(month: string, messIds: string[]): Promise<Map<string, MonthFigures>> {
    const rows = await this.cached(`university:${month}:${messIds.join(',')}`, [month], async () => {
      const { first, last } = monthBounds(month);
      const [bills, diners, ratings] = await Promise.all([
        this.billing.monthFiguresPerMess(month),
        this.users.dinersPerMess(),
        this.feedback.averageRatingPerMess(first, last),
      ]);
      return messIds.map(
        (id) => [id, rowOf(bills.get(id), diners.get(id) ?? 0, ratings.get(id) ?? null)] as const,
      );
    });
    return new Map(rows);
  }
}

const EMPTY: MonthFigures = rowOf(undefined, 0, null);

function rowOf(bill: MessMonthFigures | undefined, diners: number, rating: number | null): MonthFigures {
  const b = bill ?? {
    totalPaise: 0,
    activeMembers: 0,
    totalMeals: 0,
    mealSquares: 0,
    presentMarks: 0,
    servedSlots: 0,
  };
  return {
    members: diners,
    activeMembers: b.activeMembers,
    mealsServed: b.totalMeals,
    totalPaise: b.totalPaise,
    attendanceRate: attendanceRate(b.presentMarks, diners, b.servedSlots),
    averageRating: rating === null ? null : Math.round(rating * 100) / 100,
    healthScore: healthScore({
      averageRating: rating,
      presentMarks: b.presentMarks,
      approvedMembers: diners,
      servedSlots: b.servedSlots,
      mealSpread: { members: b.activeMembers, meals: b.totalMeals, squares: b.mealSquares },
    }).overallScore,
  };
}
