import { addDays } from '../../common/time/dates';

/**
 * The kitchen's forecast of plates per meal, as pure functions of the mess's records (no I/O): each member's own
 * propensity per meal and weekday, shrunk towards their propensity at that meal and the mess's weekday pattern when
 * their history is short; approved leave (a member on leave eats nothing, and leave days are not held against their
 * propensity); members who joined (their history starts with them) and moved in (with their first meal here);
 * declarations already made; the dishes of the menu, whose draw is learned from history; and the mess's level over
 * the last days (exam weeks, the days around a festival). The 80 % interval adds the members' Bernoulli variances
 * to a residual term measured on the mess's own recent days.
 */

export interface KitchenMark {
  userId: string;
  date: string;
  mealType: string;
  status: 'present' | 'absent';
}

export interface KitchenRecords {
  /** The configured meal times, in the day's order. */
  mealTypes: readonly string[];
  /** The approved dining members as they stand; `since`: the first date they can have eaten here. */
  members: readonly { id: string; since: string }[];
  /** Every mark known: those before a date are its history, those of the date itself its declarations. */
  marks: readonly KitchenMark[];
  /**
   * More present marks, compactly (what the service reads for long histories): per member and meal type, the days
   * counted from `from`. They must not repeat a mark of `marks`.
   */
  presence?: {
    from: string;
    rows: readonly { userId: string; mealType: string; days: readonly number[] }[];
  };
  /** Approved leave, one entry per covered meal slot. */
  leaveSlots: readonly { userId: string; date: string; mealType: string }[];
  menus: readonly { date: string; mealType: string; dishes: readonly string[] }[];
}

export interface MealForecast {
  date: string;
  mealType: string;
  expected: number;
  low: number;
  high: number;
  members: number;
  onLeave: number;
  declared: { present: number; absent: number };
  basis: string;
}

/**
 * A mess's fitted model as of a cutoff date (everything `estimate` learns from the days before it), to forecast the
 * cutoff date and later ones from without reading the history again (the hourly job fits and stores it). It holds
 * for the members it was fitted with, in that order, and the meal types it was fitted with.
 */
export interface FittedModel {
  cutoff: string;
  mealTypes: string[];
  memberIds: string[];
  /** Per member: the day number (days since 1970-01-01) their history starts as known before the cutoff. */
  historyStart: number[];
  /** Per member × meal × weekday: the probability of eating, Float64 bytes in base64. */
  p: string;
  level: number[];
  residual: number[];
  /** Per dish (trimmed, lower case): its draw; dishes not here draw ×1. */
  dish: Record<string, number>;
  historyDays: number;
  /** Day number of the first day with attendance (−1: none). */
  firstHistoryDay: number;
}

/** The model's knobs, chosen by measurement on the simulator (see docs/modules/kitchen.md). */
export interface ForecastTuning {
  /** Days of history read before the forecast's date. */
  windowDays: number;
  /** The weight of a day halves every this many days back. */
  halfLifeDays: number;
  /** Prior strength (in weighted days) of the member's meal rate towards the mess's rate at that meal. */
  memberPrior: number;
  /** Prior strength of the member's weekday rate towards their meal rate × the mess's weekday pattern. */
  weekdayPrior: number;
  /** Days of the mess's recent level (actual ÷ fitted), and its prior strength in plates-equivalent days. */
  levelDays: number;
  levelPrior: number;
  /** Within those days, the weight of a day halves every this many days back. */
  levelHalfLifeDays: number;
  /** The relative standard deviation added per share of the members on leave (a break is a regime of its own). */
  leaveUncertainty: number;
  /** Prior strength of a dish's draw, in meals' worth of fitted plates. */
  dishPrior: number;
  /** Days of residuals measured for the interval, and its widening factor. */
  residualDays: number;
  intervalScale: number;
  /** The least relative residual standard deviation assumed (a day's shared shock no history shows well). */
  residualFloor: number;
  /** Share of members assumed to come when the mess has no attendance yet. */
  newMessRate: number;
}

export const DEFAULT_TUNING: ForecastTuning = {
  windowDays: 112,
  halfLifeDays: 56,
  memberPrior: 4,
  weekdayPrior: 3,
  levelDays: 14,
  levelPrior: 1,
  levelHalfLifeDays: 5,
  leaveUncertainty: 0.3,
  dishPrior: 3,
  residualDays: 28,
  intervalScale: 1,
  residualFloor: 0.02,
  newMessRate: 0.7,
};

/** z of the 90th percentile of a standard normal: the 80 % interval is expected ± z·sd. */
const Z80 = 1.2816;
const DAY_MS = 86_400_000;
const PRESENT = 1;
const ABSENT = 2;

const dayNumber = (date: string) => Math.round(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
const weekdayOf = (day: number) => (((day + 4) % 7) + 7) % 7; // day 0 (1970-01-01) was a Thursday

interface Estimate {
  /** Per member, meal, weekday: the probability of eating, as of the cutoff. */
  p: Float64Array;
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

/**
 * The records indexed once (members × days × meals as flat arrays), to forecast many dates from: the back-test
 * forecasts each past day as of the evening before, which re-estimates at every cutoff.
 */
export class KitchenForecaster {
  private readonly meals: number;
  private readonly members: number;
  private readonly first: number;
  private readonly days: number;
  private readonly marks: Uint8Array;
  private readonly leave: Uint8Array;
  private readonly since: Int32Array;
  /** The first day each member was present (−1: never), for members who moved in with no mark before. */
  private readonly firstPresent: Int32Array;
  private readonly menuDishes: (number[] | undefined)[];
  private readonly dishCount: number;
  private readonly dishIds = new Map<string, number>();
  /** With a fitted model: its cutoff (day index) and each member's history start as known then. */
  private readonly fitted?: { cutoff: number; historyStart: Int32Array };
  /** Present marks per day × meal (the actuals). */
  private readonly actual: Int32Array;
  private readonly estimates = new Map<number, Estimate>();

  constructor(
    private readonly records: KitchenRecords,
    private readonly tuning: ForecastTuning = DEFAULT_TUNING,
    model?: FittedModel,
  ) {
    this.meals = records.mealTypes.length;
    this.members = records.members.length;
    const mealIndex = new Map(records.mealTypes.map((m, i) => [m, i]));
    const memberIndex = new Map(records.members.map((m, i) => [m.id, i]));
    let lo = Infinity;
    let hi = -Infinity;
    const see = (date: string) => {
      const d = dayNumber(date);
      if (d < lo) lo = d;
      if (d > hi) hi = d;
    };
    for (const m of records.marks) see(m.date);
    const presenceFrom = records.presence ? dayNumber(records.presence.from) : 0;
    for (const row of records.presence?.rows ?? []) {
      for (const day of row.days) {
        const d = presenceFrom + day;
        if (d < lo) lo = d;
        if (d > hi) hi = d;
      }
    }
    for (const l of records.leaveSlots) see(l.date);
    for (const m of records.menus) see(m.date);
    if (model) see(model.cutoff);
    if (lo === Infinity) lo = hi = 0;
    this.first = lo;
    this.days = hi - lo + 1;
    const size = this.days * this.meals * this.members;
    this.marks = new Uint8Array(size);
    this.leave = new Uint8Array(size);
    this.actual = new Int32Array(this.days * this.meals);
    this.firstPresent = new Int32Array(this.members).fill(-1);
    this.since = new Int32Array(records.members.map((m) => dayNumber(m.since) - lo));
    const note = (u: number | undefined, m: number, d: number, status: number) => {
      // Former members' marks count in the actuals, not in anyone's propensity.
      if (status === PRESENT) this.actual[d * this.meals + m] += 1;
      if (u === undefined) return;
      this.marks[this.cell(d, m, u)] = status;
      if (status === PRESENT && (this.firstPresent[u] < 0 || d < this.firstPresent[u]))
        this.firstPresent[u] = d;
    };
    for (const mark of records.marks) {
      const m = mealIndex.get(mark.mealType);
      if (m === undefined) continue;
      const status = mark.status === 'present' ? PRESENT : ABSENT;
      note(memberIndex.get(mark.userId), m, dayNumber(mark.date) - lo, status);
    }
    for (const row of records.presence?.rows ?? []) {
      const m = mealIndex.get(row.mealType);
      if (m === undefined) continue;
      const u = memberIndex.get(row.userId);
      for (const day of row.days) note(u, m, presenceFrom + day - lo, PRESENT);
    }
    for (const slot of records.leaveSlots) {
      const u = memberIndex.get(slot.userId);
      const m = mealIndex.get(slot.mealType);
      if (u !== undefined && m !== undefined) this.leave[this.cell(dayNumber(slot.date) - lo, m, u)] = 1;
    }
    const dishIds = this.dishIds;
    this.menuDishes = new Array(this.days * this.meals);
    for (const menu of records.menus) {
      const m = mealIndex.get(menu.mealType);
      if (m === undefined) continue;
      const ids = [...new Set(menu.dishes.map((d) => d.trim().toLowerCase()))].map((name) => {
        let id = dishIds.get(name);
        if (id === undefined) dishIds.set(name, (id = dishIds.size));
        return id;
      });
      this.menuDishes[(dayNumber(menu.date) - lo) * this.meals + m] = ids;
    }
    this.dishCount = dishIds.size;
    if (model) {
      const order = model.memberIds.map((id) => memberIndex.get(id));
      if (
        model.mealTypes.join('\n') !== records.mealTypes.join('\n') ||
        order.length !== this.members ||
        order.some((u) => u === undefined)
      )
        throw new Error('the fitted model is of other members or meals');
      const cutoff = dayNumber(model.cutoff) - lo;
      // The model's members in the records' order.
      const bytes = Buffer.from(model.p, 'base64');
      const stored = new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
      const row = this.meals * 7;
      const p = new Float64Array(stored.length);
      const historyStart = new Int32Array(this.members);
      order.forEach((u, i) => {
        p.set(stored.subarray(i * row, (i + 1) * row), u! * row);
        historyStart[u!] = model.historyStart[i] - lo;
      });
      const dish = new Float64Array(this.dishCount).fill(1);
      for (const [name, id] of dishIds) dish[id] = model.dish[name] ?? 1;
      this.fitted = { cutoff, historyStart };
      this.estimates.set(cutoff, {
        p,
        level: Float64Array.from(model.level),
        dish,
        residual: Float64Array.from(model.residual),
        historyDays: model.historyDays,
        firstHistoryDay: model.firstHistoryDay < 0 ? -1 : model.firstHistoryDay - lo,
      });
    }
  }

  /** Whether a fitted model is of exactly these meals and members (in any order). */
  static fits(model: FittedModel, records: KitchenRecords): boolean {
    if (model.mealTypes.join('\n') !== records.mealTypes.join('\n')) return false;
    if (model.memberIds.length !== records.members.length) return false;
    const ids = new Set(model.memberIds);
    return ids.size === model.memberIds.length && records.members.every((m) => ids.has(m.id));
  }

  /** The model fitted from the days before `date` (the records must hold the window before it). */
  fittedAt(date: string): FittedModel {
    const cutoff = dayNumber(date) - this.first;
    const e = this.estimateAt(cutoff);
    const dish: Record<string, number> = {};
    for (const [name, id] of this.dishIds) if (e.dish[id] !== 1) dish[name] = e.dish[id];
    return {
      cutoff: date,
      mealTypes: [...this.records.mealTypes],
      memberIds: this.records.members.map((m) => m.id),
      historyStart: Array.from({ length: this.members }, (_, u) => this.historyStart(u, cutoff) + this.first),
      p: Buffer.from(e.p.buffer, e.p.byteOffset, e.p.byteLength).toString('base64'),
      level: Array.from(e.level),
      residual: Array.from(e.residual),
      dish,
      historyDays: e.historyDays,
      firstHistoryDay: e.firstHistoryDay < 0 ? -1 : e.firstHistoryDay + this.first,
    };
  }

  /** The present marks of a meal (its actual); 0 outside the records. */
  actualOf(date: string, mealType: string): number {
    const d = dayNumber(date) - this.first;
    const m = this.records.mealTypes.indexOf(mealType);
    return m < 0 || !this.inRange(d) ? 0 : this.actual[d * this.meals + m];
  }

  /**
   * The forecast of each meal of `date` as the service would make it when today is `today`: from the attendance
   * of the dates before both, and, when `date` is today or later, the marks already made for it.
   */
  forecastDate(date: string, today: string): MealForecast[] {
    const target = dayNumber(date) - this.first;
    const cutoff = Math.min(target, dayNumber(today) - this.first);
    const estimate = this.estimateAt(cutoff);
    const declarations = date >= today;
    const wd = weekdayOf(target + this.first);
    return this.records.mealTypes.map((mealType, m) => {
      let onLeave = 0;
      let declaredPresent = 0;
      let declaredAbsent = 0;
      let modelled = 0;
      let variance = 0;
      const dishes = this.inRange(target) ? this.menuDishes[target * this.meals + m] : undefined;
      let multiplier = estimate.level[m];
      for (const id of dishes ?? []) multiplier *= estimate.dish[id];
      for (let u = 0; u < this.members; u += 1) {
        const here = this.inRange(target) ? this.cell(target, m, u) : -1;
        if (here >= 0 && this.leave[here]) {
          onLeave += 1;
          continue;
        }
        const mark = declarations && here >= 0 ? this.marks[here] : 0;
        if (mark === PRESENT) declaredPresent += 1;
        else if (mark === ABSENT) declaredAbsent += 1;
        else if (this.historyStart(u, cutoff) <= target) {
          const p = Math.min(1, estimate.p[(u * this.meals + m) * 7 + wd] * multiplier);
          modelled += p;
          variance += p * (1 - p);
        }
      }
      const ceiling = this.members - onLeave;
      const expectedExact = Math.min(ceiling, declaredPresent + modelled);
      const relative =
        estimate.residual[m] + (this.tuning.leaveUncertainty * (onLeave / this.members || 0)) ** 2;
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
        members: this.members,
        onLeave,
        declared: { present: declaredPresent, absent: declaredAbsent },
        basis: this.basis(estimate, cutoff, declaredPresent + declaredAbsent, dishes !== undefined),
      };
    });
  }

  private basis(estimate: Estimate, cutoff: number, declared: number, menu: boolean): string {
    const asOf = addDays('1970-01-01', cutoff + this.first - 1);
    const declarations = declared ? `, ${declared} declaration${declared === 1 ? '' : 's'}` : '';
    if (estimate.historyDays === 0) {
      return (
        `No attendance before this date yet: ${Math.round(this.tuning.newMessRate * 100)} % of the members not on ` +
        `leave are assumed to come${declarations}.`
      );
    }
    const since = addDays('1970-01-01', estimate.firstHistoryDay + this.first);
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
    const fp = this.firstPresent[member];
    return fp >= 0 && fp < cutoff ? fp : this.since[member];
  }

  private cell(day: number, meal: number, member: number): number {
    return (day * this.meals + meal) * this.members + member;
  }

  private inRange(day: number): boolean {
    return day >= 0 && day < this.days;
  }

  /** Everything estimated from the days before `cutoff` (day index), once per cutoff. */
  private estimateAt(cutoff: number): Estimate {
    let estimate = this.estimates.get(cutoff);
    if (!estimate) {
      estimate = this.estimate(cutoff);
      this.estimates.set(cutoff, estimate);
    }
    return estimate;
  }

  private estimate(cutoff: number): Estimate {
    const { meals, members, tuning } = this;
    const start = Math.max(0, cutoff - tuning.windowDays);
    const end = Math.min(cutoff, this.days); // exclusive
    const decay = Math.LN2 / tuning.halfLifeDays;
    // Weighted presents and eligible days: per member × meal × weekday, and the mess's per meal × weekday.
    const cells = members * meals * 7;
    const present = new Float64Array(cells);
    const eligible = new Float64Array(cells);
    const messPresent = new Float64Array(meals * 7);
    const messEligible = new Float64Array(meals * 7);
    let historyDays = 0;
    let firstHistoryDay = -1;
    const startOf = new Int32Array(members);
    for (let u = 0; u < members; u += 1) {
      startOf[u] = this.historyStart(u, cutoff);
    }
    for (let d = start; d < end; d += 1) {
      let any = false;
      for (let m = 0; m < meals && !any; m += 1) any = this.actual[d * meals + m] > 0;
      if (!any) continue;
      historyDays += 1;
      if (firstHistoryDay < 0) firstHistoryDay = d;
      const w = Math.exp(-decay * (cutoff - 1 - d));
      const wd = weekdayOf(d + this.first);
      for (let m = 0; m < meals; m += 1) {
        const base = (d * meals + m) * members;
        let p = 0;
        let e = 0;
        for (let u = 0; u < members; u += 1) {
          if (this.leave[base + u] || startOf[u] > d) continue;
          const k = (u * meals + m) * 7 + wd;
          eligible[k] += w;
          e += w;
          if (this.marks[base + u] === PRESENT) {
            present[k] += w;
            p += w;
          }
        }
        messPresent[m * 7 + wd] += p;
        messEligible[m * 7 + wd] += e;
      }
    }
    const p = new Float64Array(cells);
    const level = new Float64Array(meals).fill(1);
    const dish = new Float64Array(this.dishCount).fill(1);
    const residual = new Float64Array(meals);
    if (historyDays === 0) {
      p.fill(tuning.newMessRate);
      return { p, level, dish, residual: residual.fill(0.01), historyDays, firstHistoryDay };
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
          const prior = Math.min(1, memberRate * pattern[wd]);
          p[k] = (present[k] + tuning.weekdayPrior * prior) / (eligible[k] + tuning.weekdayPrior);
        }
      }
    }
    this.fitMenuAndLevel(start, end, startOf, p, dish, level, residual);
    return { p, level, dish, residual, historyDays, firstHistoryDay };
  }

  /**
   * What the members' propensities alone would have said of each recent meal (in-sample), against what came: the
   * dishes' draw (by backfitting, since dishes come together), the last days' level, and the residual spread.
   */
  private fitMenuAndLevel(
    start: number,
    end: number,
    startOf: Int32Array,
    p: Float64Array,
    dish: Float64Array,
    level: Float64Array,
    residual: Float64Array,
  ): void {
    const { meals, members, tuning } = this;
    const fitted: { d: number; m: number; f: number; v: number; a: number }[] = [];
    for (let d = start; d < end; d += 1) {
      const wd = weekdayOf(d + this.first);
      for (let m = 0; m < meals; m += 1) {
        const a = this.actual[d * meals + m];
        if (a === 0) continue;
        const base = (d * meals + m) * members;
        let f = 0;
        let v = 0;
        for (let u = 0; u < members; u += 1) {
          if (this.leave[base + u] || startOf[u] > d) continue;
          const q = p[(u * meals + m) * 7 + wd];
          f += q;
          v += q * (1 - q);
        }
        if (f > 0) fitted.push({ d, m, f, v, a });
      }
    }
    const dishesOf = (d: number, m: number) => this.menuDishes[d * meals + m] ?? [];
    const withMenu = fitted.filter((x) => dishesOf(x.d, x.m).length > 0);
    const meanFitted = withMenu.reduce((s, x) => s + x.f, 0) / Math.max(1, withMenu.length);
    for (let pass = 0; pass < 3; pass += 1) {
      const num = new Float64Array(this.dishCount);
      const den = new Float64Array(this.dishCount);
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
      for (let id = 0; id < this.dishCount; id += 1) dish[id] = (num[id] + prior) / (den[id] + prior);
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
