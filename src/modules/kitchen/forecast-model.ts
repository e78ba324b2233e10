import { addDays } from '../../common/time/dates';
import { estimate, type Estimate } from './forecast-estimate';
import {
  DEFAULT_TUNING,
  type FittedModel,
  type ForecastTuning,
  type KitchenRecords,
  type MealForecast,
} from './forecast-types';
import { fits, loadModel, toFittedModel } from './fitted-model';
import { ABSENT, PRESENT, RecordsIndex, weekdayOf } from './records-index';

export * from './forecast-types';
export { adaptModel } from './fitted-model';

/**
 * The kitchen's forecast of plates per meal, as pure functions of the mess's records (no I/O): each member's own
 * propensity per meal and weekday, shrunk towards their propensity at that meal and the mess's weekday pattern when
 * their history is short; approved leave (a member on leave eats nothing, and leave days are not held against their
 * propensity); members who joined (their history starts with them) and moved in (with their first meal here);
 * declarations already made; the dishes of the menu, whose draw is learned from history; and the mess's level over
 * the last days (exam weeks, the days around a festival). The 80 % interval adds the members' Bernoulli variances
 * to a residual term measured on the mess's own recent days.
 */

/** z of the 90th percentile of a standard normal: the 80 % interval is expected ± z·sd. */
const Z80 = 1.2816;

/**
 * The records indexed once (records-index.ts), to forecast many dates from: the back-test forecasts each past day as
 * of the evening before, which re-estimates at every cutoff (forecast-estimate.ts). With a kept model
 * (fitted-model.ts), a forecast as of its cutoff or later uses the model's estimate instead of the history.
 */
export class KitchenForecaster {
  private readonly index: RecordsIndex;
  /** With a fitted model: its cutoff (day index) and each member's history start as known then. */
  private readonly fitted?: { cutoff: number; historyStart: Int32Array };
  private readonly estimates = new Map<number, Estimate>();

  constructor(
    private readonly records: KitchenRecords,
    private readonly tuning: ForecastTuning = DEFAULT_TUNING,
    model?: FittedModel,
  ) {
    this.index = new RecordsIndex(records, model?.cutoff);
    if (model) {
      const loaded = loadModel(this.index, records, model);
      this.fitted = { cutoff: loaded.cutoff, historyStart: loaded.historyStart };
      this.estimates.set(loaded.cutoff, loaded.estimate);
    }
  }

  /** Whether a fitted model is of exactly these meals and members (in any order). */
  static fits(model: FittedModel, records: KitchenRecords): boolean {
    return fits(model, records);
  }

  /** The model fitted from the days before `date` (the records must hold the window before it). */
  fittedAt(date: string): FittedModel {
    const cutoff = this.index.dayOf(date);
    return toFittedModel(this.index, this.records, date, this.estimateAt(cutoff), (u) =>
      this.historyStart(u, cutoff),
    );
  }

  /** The present marks of a meal (its actual); 0 outside the records. */
  actualOf(date: string, mealType: string): number {
    const d = this.index.dayOf(date);
    const m = this.records.mealTypes.indexOf(mealType);
    return m < 0 || !this.index.inRange(d) ? 0 : this.index.actual[d * this.index.meals + m];
  }

  /**
   * The forecast of each meal of `date` as the service would make it when today is `today`: from the attendance
   * of the dates before both, and, when `date` is today or later, the marks already made for it.
   */
  forecastDate(date: string, today: string): MealForecast[] {
    const index = this.index;
    const target = index.dayOf(date);
    const cutoff = this.asOf(Math.min(target, index.dayOf(today)));
    const estimate = this.estimateAt(cutoff);
    const declarations = date >= today;
    const wd = weekdayOf(target + index.first);
    return this.records.mealTypes.map((mealType, m) => {
      let onLeave = 0;
      let declaredPresent = 0;
      let declaredAbsent = 0;
      let modelled = 0;
      let variance = 0;
      const dishes = index.inRange(target) ? index.menuDishes[target * index.meals + m] : undefined;
      let multiplier = estimate.level[m];
      for (const id of dishes ?? []) multiplier *= estimate.dish[id];
      for (let u = 0; u < index.members; u += 1) {
        const here = index.inRange(target) ? index.cell(target, m, u) : -1;
        if (here >= 0 && index.leave[here]) {
          onLeave += 1;
          continue;
        }
        const mark = declarations && here >= 0 ? index.marks[here] : 0;
        if (mark === PRESENT) declaredPresent += 1;
        else if (mark === ABSENT) declaredAbsent += 1;
        else if (this.historyStart(u, cutoff) <= target) {
          const p = Math.min(1, estimate.p[(u * index.meals + m) * 7 + wd] * multiplier);
          modelled += p;
          variance += p * (1 - p);
        }
      }
      const ceiling = index.members - onLeave;
      const expectedExact = Math.min(ceiling, declaredPresent + modelled);
      const relative =
        estimate.residual[m] + (this.tuning.leaveUncertainty * (onLeave / index.members || 0)) ** 2;
      const sd = this.tuning.intervalScale * Math.sqrt(variance + relative * modelled * modelled);
      const expected = Math.round(expectedExact);
      const low = Math.max(declaredPresent, Math.min(expected, Math.floor(expectedExact - Z80 * sd)));
      const high = Math.min(ceiling, Math.max(expected, Math.ceil(expectedExact + Z80 * sd)));
      return {
        date,
        mealType,
        expected,
        low: Math.min(low, expected),
        high,
        members: index.members,
        onLeave,
        declared: { present: declaredPresent, absent: declaredAbsent },
        basis: this.basis(estimate, cutoff, declaredPresent + declaredAbsent, dishes !== undefined),
      };
    });
  }

  private basis(estimate: Estimate, cutoff: number, declared: number, menu: boolean): string {
    const asOf = addDays('1970-01-01', cutoff + this.index.first - 1);
    const declarations = declared ? `, ${declared} declaration${declared === 1 ? '' : 's'}` : '';
    if (estimate.historyDays === 0) {
      return (
        `No attendance before this date yet: ${Math.round(this.tuning.newMessRate * 100)} % of the members not on ` +
        `leave are assumed to come${declarations}.`
      );
    }
    const since = addDays('1970-01-01', estimate.firstHistoryDay + this.index.first);
    const few = estimate.historyDays < 28 ? ' (little history yet: leaning on the mess-wide pattern)' : '';
    return (
      `${estimate.historyDays} days of attendance (${since} to ${asOf})${few}, approved leave${declarations}` +
      `${menu ? ", the menu's dishes" : ''} and the last ${this.tuning.levelDays} days' level.`
    );
  }

  /**
   * Where a member's history starts, as known before `cutoff`: with their first meal here (a member who moved in
   * brings an old account but no meals), or else the day they joined (a member who never eats has a history of
   * empty days, not none).
   */
  private historyStart(member: number, cutoff: number): number {
    if (this.fitted && cutoff === this.fitted.cutoff) return this.fitted.historyStart[member];
    const fp = this.index.firstPresent[member];
    return fp >= 0 && fp < cutoff ? fp : this.index.since[member];
  }

  /**
   * The cutoff a forecast as of `cutoff` is made from: the kept model's when it is that or earlier (a model kept
   * from an earlier day answers until it is fitted again: the service's choice), else `cutoff` itself.
   */
  private asOf(cutoff: number): number {
    return this.fitted && cutoff >= this.fitted.cutoff ? this.fitted.cutoff : cutoff;
  }

  /** Everything estimated from the days before `cutoff` (day index), once per cutoff. */
  private estimateAt(cutoff: number): Estimate {
    let e = this.estimates.get(cutoff);
    if (!e) {
      const startOf = new Int32Array(this.index.members);
      for (let u = 0; u < this.index.members; u += 1) startOf[u] = this.historyStart(u, cutoff);
      e = estimate(this.index, cutoff, startOf, this.tuning);
      this.estimates.set(cutoff, e);
    }
    return e;
  }
}

/** WAPE and bias of forecasts against actuals: Σ|f − a| / Σa and Σ(f − a) / Σa (null when Σa is 0). */
export function accuracy(rows: readonly { forecast: number; actual: number }[]): {
  wape: number | null;
  bias: number | null;
} {
  let error = 0;
  let signed = 0;
  let actual = 0;
  for (const row of rows) {
    error += Math.abs(row.forecast - row.actual);
    signed += row.forecast - row.actual;
    actual += row.actual;
  }
  if (actual === 0) return { wape: null, bias: null };
  return { wape: round4(error / actual), bias: round4(signed / actual) };
}

export const round4 = (x: number) => Math.round(x * 10_000) / 10_000;
