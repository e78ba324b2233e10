import { Injectable } from '@nestjs/common';
import { badRequest } from '../../common/errors/api-error';
import type { FieldError } from '../../common/errors/api-error';
import { Clock } from '../../common/time/clock';
import { addDays } from '../../common/time/dates';
import { accuracy, DEFAULT_TUNING, KitchenForecaster, type MealForecast } from './forecast-model';
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
export class ForecastService {
  constructor(
    private readonly records: KitchenRecordsReader,
    private readonly repository: KitchenRepository,
    private readonly clock: Clock,
  ) {}

  /** Each configured meal of each date from `from` to `to` (default today and 6 days on), by date then meal time. */
  async forecast(query: { from?: string; to?: string }): Promise<MealForecast[]> {
    const today = this.records.today(this.clock.now());
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
    await this.repository.storeForecasts(
      forecasts
        .filter((f) => f.date >= today)
        .map(({ date, mealType, expected, low, high }) => ({ date, mealType, expected, low, high })),
    );
    return forecasts;
  }

  /**
   * From today on, the model kept for today (fitted from the days before it) with only the dates' own records, when
   * it is of the same members and meals; otherwise the whole window read and fitted, and the model kept for today.
   * Both forecast the same (forecast-model.spec.ts).
   */
  private async forecasterFor(from: string, to: string, today: string): Promise<KitchenForecaster> {
    if (from >= today) {
      // Both at once: the dates' own records are a small read, wasted only on the day's first forecast.
      const [model, records] = await Promise.all([
        this.repository.modelAt(today),
        this.records.read(today, to, today),
      ]);
      if (model) {
        if (KitchenForecaster.fits(model, records)) return new KitchenForecaster(records, DEFAULT_TUNING, model);
      }
    }
    const start = from < today ? from : today;
    const forecaster = new KitchenForecaster(
      await this.records.read(addDays(start, -DEFAULT_TUNING.windowDays), to, today),
    );
    // Kept only when read as a forecast from today reads (the window before today): a read that starts earlier sees
    // members' first meals before the window, and fits a little otherwise.
    if (from >= today) await this.repository.storeModel(forecaster.fittedAt(today));
    return forecaster;
  }

  /** Drops the kept model (a record before today changed: the next forecast fits again). */
  async forget(): Promise<void> {
    await this.repository.dropModel();
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
    const records = await this.records.read(addDays(from, -DEFAULT_TUNING.windowDays), to);
    const forecaster = new KitchenForecaster(records);
    const menus = new Set(records.menus.map((m) => `${m.date}|${m.mealType}`));
    const days: AccuracyDay[] = [];
    const baseline: { forecast: number; actual: number }[] = [];
    for (let date = from; date <= to; date = addDays(date, 1)) {
      // As of the evening before: "today" is the next day, so none of the date's own marks are read.
      for (const f of forecaster.forecastDate(date, addDays(date, 1))) {
        if (!menus.has(`${date}|${f.mealType}`)) continue;
        const actual = forecaster.actualOf(date, f.mealType);
        days.push({ date, mealType: f.mealType, forecast: f.expected, actual });
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
