import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { badRequest } from '../../common/errors/api-error';
import type { FieldError } from '../../common/errors/api-error';
import { currentMessId, inMess } from '../../common/tenancy/mess-scope';
import { Clock } from '../../common/time/clock';
import { addDays } from '../../common/time/dates';
import {
  accuracy,
  adaptModel,
  DEFAULT_TUNING,
  KitchenForecaster,
  type MealForecast,
} from './forecast-model';
import { KitchenRecordsReader } from './kitchen-records';
import { KitchenRepository } from './kitchen.repository';

/** The most days one forecast request and one back-test cover. */
export const FORECAST_DAYS_MAX = 14;
export const ACCURACY_DAYS_MAX = 92;
export const BASELINE_METHOD = 'same meal last week';

export interface AccuracyDay {
  date: string;
  mealType: string;
  forecast: number;
  actual: number;
  /** When the forecast reported was answered (before the meal's day began); null: none was, it is recomputed. */
  madeAt: Date | null;
}

export interface AccuracyReport {
  days: AccuracyDay[];
  summary: {
    wape: number | null;
    bias: number | null;
    meals: number;
    baseline: { method: string; wape: number | null };
  };
}

const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;

/**
 * The forecast of plates per meal and its back-test (extension 2.3, "Cooking for the right number"). A forecast
 * for a date reads the attendance of the dates before it (and before today), the members, leave and menus as they
 * stand, and the marks of the date itself only when it is today or later.
 */
@Injectable()
export class ForecastService implements OnModuleDestroy {
  private readonly logger = new Logger('ForecastService');
  /** The background fits running in this process, by mess. */
  private readonly refits = new Map<string, Promise<void>>();

  constructor(
    private readonly records: KitchenRecordsReader,
    private readonly repository: KitchenRepository,
    private readonly clock: Clock,
  ) {}

  /** Each configured meal of each date from `from` to `to` (default today and 6 days on), by date then meal time. */
  async forecast(query: { from?: string; to?: string }): Promise<MealForecast[]> {
    const now = this.clock.now();
    const today = this.records.today(now);
    const from = query.from ?? (query.to !== undefined && query.to < today ? query.to : today);
    const to = query.to ?? addDays(from, 6);
    const errors: FieldError[] = [];
    if (to < from) errors.push({ field: 'to', message: 'to must not be before from' });
    else if (daysBetween(from, to) > FORECAST_DAYS_MAX) {
      errors.push({
        field: 'to',
        message: `at most ${FORECAST_DAYS_MAX} days from from to to, both counted`,
      });
    }
    if (errors.length) throw badRequest('Validation failed', errors);
    const forecaster = await this.forecasterFor(from, to, today);
    const forecasts: MealForecast[] = [];
    for (let date = from; date <= to; date = addDays(date, 1))
      forecasts.push(...forecaster.forecastDate(date, today));
    // Kept: the answers given before their meal's day began (the back-test's "evening before", tomorrow's plates).
    await this.repository.storeForecasts(
      forecasts
        .filter((f) => f.date > today)
        .map(({ date, mealType, expected, low, high }) => ({ date, mealType, expected, low, high })),
      now,
    );
    return forecasts;
  }

  /**
   * From today on: the model kept for today with only the dates' own records, when it is current (fitted after the
   * last change of the past heard) and of the same members and meals; both forecast what a fit of the whole window
   * would (forecast-model.spec.ts). A kept model that is out of date (of an earlier day, a change of the past heard
   * since, members who joined or left) answers as it stands, joiners given a new member's probability, while the
   * mess's model is fitted again in the background (`refitInBackground`). Only a mess with no kept model at all, a
   * change of meal times, or a forecast starting before today reads the whole window and fits in the request.
   */
  private async forecasterFor(from: string, to: string, today: string): Promise<KitchenForecaster> {
    let changes = 0;
    if (from >= today) {
      // Both at once: the dates' own records are a small read, wasted only when the request must fit.
      const [kept, records] = await Promise.all([
        this.repository.keptModel(),
        this.records.read(today, to, today),
      ]);
      if (kept && kept.model.cutoff <= today) {
        changes = kept.changes;
        const current = kept.current && kept.model.cutoff === today && KitchenForecaster.fits(kept.model, records);
        const model = current ? kept.model : adaptModel(kept.model, records);
        if (model) {
          if (!current) this.refitInBackground();
          return new KitchenForecaster(records, DEFAULT_TUNING, model);
        }
      }
    }
    const start = from < today ? from : today;
    const forecaster = new KitchenForecaster(
      await this.records.read(addDays(start, -DEFAULT_TUNING.windowDays), to, today),
    );
    // Kept only when read as a forecast from today reads (the window before today): a read that starts earlier sees
    // members' first meals before the window, and fits a little otherwise.
    if (from >= today) await this.repository.storeModel(forecaster.fittedAt(today), changes);
    return forecaster;
  }

  /**
   * The last forecast answered of each meal between two dates before its day began in the mess's time zone, by
   * `date|mealType`. A row kept before only such answers were may hold an answer of the day itself: left out.
   */
  private async answeredBefore(
    from: string,
    to: string,
  ): Promise<Map<string, { expected: number; madeAt: Date }>> {
    const kept = await this.repository.forecastsBetween(from, to);
    return new Map(
      kept
        .filter((row) => row.madeAt < this.records.dayBegins(row.date))
        .map((row) => [`${row.date}|${row.mealType}`, { expected: row.expected, madeAt: row.madeAt }]),
    );
  }

  /** Fits the mess's model as of today from the window before it and keeps it (the hourly job; the background). */
  async refit(): Promise<void> {
    const today = this.records.today(this.clock.now());
    // The changes counted before the records are read: one heard during the fit leaves the model out of date.
    const changes = (await this.repository.keptModel())?.changes ?? 0;
    const records = await this.records.read(addDays(today, -DEFAULT_TUNING.windowDays), today, today);
    await this.repository.storeModel(new KitchenForecaster(records).fittedAt(today), changes);
  }

  /** Fits the running code's mess again, after the response, unless a fit of it is already running here. */
  private refitInBackground(): void {
    const messId = currentMessId();
    if (this.refits.has(messId)) return;
    const job = inMess(messId, () => this.refit())
      .catch((error: unknown) => {
        this.logger.warn(`Fitting the kitchen's model again failed: ${String(error)}`);
      })
      .finally(() => this.refits.delete(messId));
    this.refits.set(messId, job);
  }

  /** Resolves when the running code's mess has no background fit running here (tests wait for it). */
  async settled(): Promise<void> {
    await this.refits.get(currentMessId());
  }

  /** The model is out of date: a record before today changed (the next forecast answers and fits again). */
  async changed(): Promise<void> {
    await this.repository.modelChanged();
  }

  /** Drops the kept model: the next forecast reads the whole window and fits in the request. */
  async forget(): Promise<void> {
    await this.repository.dropModel();
  }

  /** Shutting down: the background fits finish first (they use the database). */
  async onModuleDestroy(): Promise<void> {
    await Promise.allSettled([...this.refits.values()]);
  }

  /**
   * The back-test: each meal with a menu from `from` to `to` (past dates, default the 28 days before today)
   * forecast as of the evening before, against its present marks; and the same figures for "the same meal seven
   * days earlier".
   */
  async accuracy(query: { from?: string; to?: string }): Promise<AccuracyReport> {
    const today = this.records.today(this.clock.now());
    const to = query.to ?? addDays(today, -1);
    const from = query.from ?? addDays(to, -27);
    const errors: FieldError[] = [];
    if (from >= today) errors.push({ field: 'from', message: 'from must be a past date (before today)' });
    if (to >= today) errors.push({ field: 'to', message: 'to must be a past date (before today)' });
    if (!errors.length && to < from) errors.push({ field: 'to', message: 'to must not be before from' });
    else if (!errors.length && daysBetween(from, to) > ACCURACY_DAYS_MAX) {
      errors.push({
        field: 'to',
        message: `at most ${ACCURACY_DAYS_MAX} days from from to to, both counted`,
      });
    }
    if (errors.length) throw badRequest('Validation failed', errors);
    const [records, answered] = await Promise.all([
      this.records.read(addDays(from, -DEFAULT_TUNING.windowDays), to),
      this.answeredBefore(from, to),
    ]);
    const forecaster = new KitchenForecaster(records);
    const menus = new Set(records.menus.map((m) => `${m.date}|${m.mealType}`));
    const days: AccuracyDay[] = [];
    const baseline: { forecast: number; actual: number }[] = [];
    for (let date = from; date <= to; date = addDays(date, 1)) {
      // What the service answered before the day began, else as of the evening before: "today" is the next day,
      // so none of the date's own marks are read.
      for (const f of forecaster.forecastDate(date, addDays(date, 1))) {
        if (!menus.has(`${date}|${f.mealType}`)) continue;
        const actual = forecaster.actualOf(date, f.mealType);
        const said = answered.get(`${date}|${f.mealType}`);
        days.push({
          date,
          mealType: f.mealType,
          forecast: said?.expected ?? f.expected,
          actual,
          madeAt: said?.madeAt ?? null,
        });
        baseline.push({ forecast: forecaster.actualOf(addDays(date, -7), f.mealType), actual });
      }
    }
    return {
      days,
      summary: {
        ...accuracy(days),
        meals: days.length,
        baseline: { method: BASELINE_METHOD, wape: accuracy(baseline).wape },
      },
    };
  }
}
