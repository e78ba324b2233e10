import type { ForecastTuning } from './forecast-types';
import { PRESENT, type RecordsIndex, weekdayOf } from './records-index';

/**
 * What the model learns from the days before a cutoff (pure, no I/O): each member's probability per meal and
 * weekday, the dishes' draws, the mess's recent level and the residual spread of each meal.
 */
export interface Estimate {
  /** Per member, meal, weekday: the probability of eating, as of the cutoff. */
  p: Float64Array;
  /** Per meal, weekday: the probability of a member with no history (the mess's rate × its weekday pattern). */
  prior: Float64Array;
  /** Per meal: the multiplier for the mess's recent level. */
  level: Float64Array;
  /** Per dish id: its draw (×). */
  dish: Float64Array;
  /** Per meal: the residual variance, relative to the expected number squared. */
  residual: Float64Array;
  /** Days with attendance in the window, and the first of them. */
  historyDays: number;
  firstHistoryDay: number;
}

/** The estimate from the days before `cutoff` (day index); `startOf`: each member's history start (day index). */
export function estimate(
  index: RecordsIndex,
  cutoff: number,
  startOf: Int32Array,
  tuning: ForecastTuning,
): Estimate {
  const { meals, members } = index;
  const start = Math.max(0, cutoff - tuning.windowDays);
  const end = Math.min(cutoff, index.days); // exclusive
  const decay = Math.LN2 / tuning.halfLifeDays;
  // Weighted presents and eligible days: per member × meal × weekday, and the mess's per meal × weekday.
  const cells = members * meals * 7;
  const present = new Float64Array(cells);
  const eligible = new Float64Array(cells);
  const messPresent = new Float64Array(meals * 7);
  const messEligible = new Float64Array(meals * 7);
  let historyDays = 0;
  let firstHistoryDay = -1;
  for (let d = start; d < end; d += 1) {
    let any = false;
    for (let m = 0; m < meals && !any; m += 1) any = index.actual[d * meals + m] > 0;
    if (!any) continue;
    historyDays += 1;
    if (firstHistoryDay < 0) firstHistoryDay = d;
    const w = Math.exp(-decay * (cutoff - 1 - d));
    const wd = weekdayOf(d + index.first);
    for (let m = 0; m < meals; m += 1) {
      const base = (d * meals + m) * members;
      let p = 0;
      let e = 0;
      for (let u = 0; u < members; u += 1) {
        if (index.leave[base + u] || startOf[u] > d) continue;
        const k = (u * meals + m) * 7 + wd;
        eligible[k] += w;
        e += w;
        if (index.marks[base + u] === PRESENT) {
          present[k] += w;
          p += w;
        }
      }
      messPresent[m * 7 + wd] += p;
      messEligible[m * 7 + wd] += e;
    }
  }
  const p = new Float64Array(cells);
  const prior = new Float64Array(meals * 7);
  const level = new Float64Array(meals).fill(1);
  const dish = new Float64Array(index.dishCount).fill(1);
  const residual = new Float64Array(meals);
  if (historyDays === 0) {
    p.fill(tuning.newMessRate);
    prior.fill(tuning.newMessRate);
    return { p, prior, level, dish, residual: residual.fill(0.01), historyDays, firstHistoryDay };
  }
  for (let m = 0; m < meals; m += 1) {
    let mp = 0;
    let me = 0;
    for (let wd = 0; wd < 7; wd += 1) {
      mp += messPresent[m * 7 + wd];
      me += messEligible[m * 7 + wd];
    }
    const mealRate = me > 0 ? mp / me : tuning.newMessRate;
    const pattern = Array.from({ length: 7 }, (_, wd) => {
      const e = messEligible[m * 7 + wd];
      // The weekday's rate relative to the meal's, shrunk towards 1 when it has been seen little.
      return (messPresent[m * 7 + wd] + 2 * mealRate) / (e + 2) / mealRate || 1;
    });
    // A member with no eligible day: their meal rate is the mess's, their weekday rate its pattern's.
    for (let wd = 0; wd < 7; wd += 1) prior[m * 7 + wd] = Math.min(1, mealRate * pattern[wd]);
    for (let u = 0; u < members; u += 1) {
      let up = 0;
      let ue = 0;
      for (let wd = 0; wd < 7; wd += 1) {
        up += present[(u * meals + m) * 7 + wd];
        ue += eligible[(u * meals + m) * 7 + wd];
      }
      const memberRate = (up + tuning.memberPrior * mealRate) / (ue + tuning.memberPrior);
      for (let wd = 0; wd < 7; wd += 1) {
        const k = (u * meals + m) * 7 + wd;
        const towards = Math.min(1, memberRate * pattern[wd]);
        p[k] = (present[k] + tuning.weekdayPrior * towards) / (eligible[k] + tuning.weekdayPrior);
      }
    }
  }
  fitMenuAndLevel(index, tuning, start, end, startOf, p, dish, level, residual);
  return { p, prior, level, dish, residual, historyDays, firstHistoryDay };
}

/**
 * What the members' propensities alone would have said of each recent meal (in-sample), against what came: the
 * dishes' draw (by backfitting, since dishes come together), the last days' level, and the residual spread.
 */
function fitMenuAndLevel(
  index: RecordsIndex,
  tuning: ForecastTuning,
  start: number,
  end: number,
  startOf: Int32Array,
  p: Float64Array,
  dish: Float64Array,
  level: Float64Array,
  residual: Float64Array,
): void {
  const { meals, members, dishCount } = index;
  const fitted: { d: number; m: number; f: number; v: number; a: number }[] = [];
  for (let d = start; d < end; d += 1) {
    const wd = weekdayOf(d + index.first);
    for (let m = 0; m < meals; m += 1) {
      const a = index.actual[d * meals + m];
      if (a === 0) continue;
      const base = (d * meals + m) * members;
      let f = 0;
      let v = 0;
      for (let u = 0; u < members; u += 1) {
        if (index.leave[base + u] || startOf[u] > d) continue;
        const q = p[(u * meals + m) * 7 + wd];
        f += q;
        v += q * (1 - q);
      }
      if (f > 0) fitted.push({ d, m, f, v, a });
    }
  }
  const dishesOf = (d: number, m: number) => index.dishesOf(d, m);
  const withMenu = fitted.filter((x) => dishesOf(x.d, x.m).length > 0);
  const meanFitted = withMenu.reduce((s, x) => s + x.f, 0) / Math.max(1, withMenu.length);
  for (let pass = 0; pass < 3; pass += 1) {
    const num = new Float64Array(dishCount);
    const den = new Float64Array(dishCount);
    for (const x of withMenu) {
      const ids = dishesOf(x.d, x.m);
      let all = 1;
      for (const id of ids) all *= dish[id];
      for (const id of ids) {
        num[id] += x.a;
        den[id] += (x.f * all) / dish[id];
      }
    }
    const prior = tuning.dishPrior * meanFitted;
    for (let id = 0; id < dishCount; id += 1) dish[id] = (num[id] + prior) / (den[id] + prior);
  }
  const menuFactor = (x: { d: number; m: number }) => dishesOf(x.d, x.m).reduce((f, id) => f * dish[id], 1);
  for (let m = 0; m < meals; m += 1) {
    const mine = fitted.filter((x) => x.m === m);
    const recent = mine.filter((x) => x.d >= end - tuning.levelDays);
    let a = 0;
    let f = 0;
    for (const x of recent) {
      const w = 0.5 ** ((end - 1 - x.d) / tuning.levelHalfLifeDays);
      a += w * x.a;
      f += w * x.f * menuFactor(x);
    }
    const perDay = mine.length ? mine.reduce((s, x) => s + x.f, 0) / mine.length : 0;
    level[m] = (a + tuning.levelPrior * perDay) / (f + tuning.levelPrior * perDay) || 1;
    // The residual: relative errors of recent days beyond their Bernoulli spread, each day against the level of
    // the days just before it, as the forecast itself would have been corrected.
    const spread = mine.filter((x) => x.d >= end - tuning.residualDays);
    let sum = 0;
    let n = 0;
    for (const x of spread) {
      const before = mine.filter((y) => y.d < x.d && y.d >= x.d - tuning.levelDays);
      let ba = 0;
      let bf = 0;
      for (const y of before) {
        const w = 0.5 ** ((x.d - 1 - y.d) / tuning.levelHalfLifeDays);
        ba += w * y.a;
        bf += w * y.f * menuFactor(y);
      }
      const lv = (ba + tuning.levelPrior * perDay) / (bf + tuning.levelPrior * perDay) || 1;
      const e = x.f * menuFactor(x) * lv;
      sum += ((x.a - e) ** 2 - x.v) / (e * e);
      n += 1;
    }
    residual[m] = Math.max(tuning.residualFloor ** 2, n ? sum / n : 0.01);
  }
}
