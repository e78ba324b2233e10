import type { KitchenRecords } from './forecast-types';

/** The kitchen's records indexed once as flat arrays (members × days × meals), for the model to read by number. */

export const DAY_MS = 86_400_000;
export const PRESENT = 1;
export const ABSENT = 2;

/** Day numbers of the dates seen lately: the records name few distinct dates many times (a week's marks: 7). */
const dayNumbers = new Map<string, number>();

/** Days since 1970-01-01. */
export function dayNumber(date: string): number {
  let day = dayNumbers.get(date);
  if (day === undefined) {
    day = Math.round(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
    if (dayNumbers.size >= 4_096) dayNumbers.clear();
    dayNumbers.set(date, day);
  }
  return day;
}
/** 0 = Sunday … 6 = Saturday; day 0 (1970-01-01) was a Thursday. */
export const weekdayOf = (day: number) => (((day + 4) % 7) + 7) % 7;

export class RecordsIndex {
  readonly meals: number;
  readonly members: number;
  /** The day number of day index 0. */
  readonly first: number;
  readonly days: number;
  readonly mealIndex: Map<string, number>;
  readonly memberIndex: Map<string, number>;
  /** Per day × meal × member: PRESENT, ABSENT or 0 (unmarked). */
  readonly marks: Uint8Array;
  /** Per day × meal × member: 1 on approved leave. */
  readonly leave: Uint8Array;
  /** Per member: the day index their account was made. */
  readonly since: Int32Array;
  /** The first day each member was present (−1: never), for members who moved in with no mark before. */
  readonly firstPresent: Int32Array;
  /** Per day × meal: the menu's dish ids. */
  readonly menuDishes: (number[] | undefined)[];
  /** Dish name (trimmed, lower case) → id. */
  readonly dishIds = new Map<string, number>();
  readonly dishCount: number;
  /** Present marks per day × meal (the actuals). */
  readonly actual: Int32Array;

  /** `alsoDay`: a date the index must cover though no record is of it (a kept model's cutoff). */
  constructor(records: KitchenRecords, alsoDay?: string) {
    this.meals = records.mealTypes.length;
    this.members = records.members.length;
    const mealIndex = (this.mealIndex = new Map(records.mealTypes.map((m, i) => [m, i])));
    const memberIndex = (this.memberIndex = new Map(records.members.map((m, i) => [m.id, i])));
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
    if (alsoDay !== undefined) see(alsoDay);
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
    this.menuDishes = new Array(this.days * this.meals);
    for (const menu of records.menus) {
      const m = mealIndex.get(menu.mealType);
      if (m === undefined) continue;
      const ids = [...new Set(menu.dishes.map((d) => d.trim().toLowerCase()))].map((name) => {
        let id = this.dishIds.get(name);
        if (id === undefined) this.dishIds.set(name, (id = this.dishIds.size));
        return id;
      });
      this.menuDishes[(dayNumber(menu.date) - lo) * this.meals + m] = ids;
    }
    this.dishCount = this.dishIds.size;
  }

  /** The day index of a date. */
  dayOf(date: string): number {
    return dayNumber(date) - this.first;
  }

  cell(day: number, meal: number, member: number): number {
    return (day * this.meals + meal) * this.members + member;
  }

  inRange(day: number): boolean {
    return day >= 0 && day < this.days;
  }

  /** The dish ids of a meal's menu (none outside the records). */
  dishesOf(day: number, meal: number): readonly number[] {
    return (this.inRange(day) ? this.menuDishes[day * this.meals + meal] : undefined) ?? [];
  }
}
