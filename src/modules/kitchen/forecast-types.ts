/** The forecast's inputs, outputs, kept model and knobs (the model itself: forecast-model.ts). */

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
  /**
   * Per meal × weekday: the probability of a member with no history here (the mess's meal rate × its weekday
   * pattern), for a member who joined after the fit (see adaptModel). Absent in models kept before it was added.
   */
  prior?: number[];
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
