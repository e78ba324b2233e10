import { addDays, monthBounds } from '../../common/time/dates';
import type { RebateBand } from '../mess-config';
import type { MonthBill, MemberShare } from './cost-shares';

/**
 * Extension 2.3, the daily rate, computed exactly in integer paise: each member on the mess's rolls is charged the
 * rate for every day on the rolls in the month, less a rebate for each approved leave:
 *
 *   share = days × rate − Σ over the member's approved leaves of round(rebated days in the month × rate × percent / 100)
 *
 * each rounding half up to the paisa, once per leave and month. A leave's band is chosen by all its full days (a
 * calendar day every configured meal of which the leave covers), across months; its rebated days are its full days
 * on the rolls, counted per term in the order of the days (a member's leaves never overlap, so that is the order of
 * the leaves' start dates) until the term's cap is reached. A leave below every band, or in a 0 % band, rebates
 * nothing and uses none of the cap.
 */

/** A member's approved leave as the daily rate reads it: its dates and the full days it covers. */
export interface DailyLeave {
  leaveId: string;
  userId: string;
  startDate: string;
  endDate: string;
  startMealType: string;
  endMealType: string;
  createdAt: Date;
  /** Every full day of the leave (all its configured meals covered), ascending: also those outside the month. */
  fullDays: string[];
}

export interface DailyRules {
  ratePaise: number;
  bands: readonly RebateBand[];
  /** 0: no cap. */
  daysPerTerm: number;
  termStartMonths: readonly number[];
}

/** A member's rolls in the mess: the days of the month on them (and of the term so far, for the cap). */
export interface DailyMember {
  userId: string;
  fullName: string;
  /** Present marks of the month (what the other methods share by); shown, not billed. */
  meals: number;
  /** Whether a date is a day on the mess's rolls (any date of the term up to the month's end is asked). */
  onRolls: (date: string) => boolean;
}

/** One leave's rebate in the month billed. */
export interface DailyRebate {
  leaveId: string;
  startDate: string;
  endDate: string;
  startMealType: string;
  endMealType: string;
  /** Full days of the whole leave: what chose its band. */
  leaveDays: number;
  /** Its full days in the month on the rolls. */
  daysInMonth: number;
  /** Of those, the days rebated after the band and the term's cap. */
  rebatedDays: number;
  percent: number;
  amountPaise: number;
  /** Whether the leave is shorter than every band (it rebates nothing). */
  belowBands: boolean;
  /** Its full days in the month before the member's first day on the rolls: they count nothing. */
  beforeJoiningDays: number;
  /** Its other full days in the month off the rolls (after leaving, not dining): they count nothing. */
  offRollsDays: number;
}

export interface DailyShare extends MemberShare {
  days: number;
  /** Full days of approved leave in the month on the rolls. */
  leaveDays: number;
  rebatedDays: number;
  /** days × rate */
  grossPaise: number;
  rebatePaise: number;
  /** The leaves that rebate something, or that have full days in the month, by start date. */
  rebates: DailyRebate[];
}

/** The daily rate's bill: a MonthBill (total = the month's expenses, allocated = Σ share) with the rate and lines. */
export interface DailyBill extends MonthBill {
  method: 'daily';
  ratePaise: number;
  shares: DailyShare[];
}

/** The band of a leave of `days` full days: the one with the largest minDays ≤ days; undefined below every band. */
export function bandOf(bands: readonly RebateBand[], days: number): RebateBand | undefined {
  let best: RebateBand | undefined;
  for (const band of bands) if (band.minDays <= days && (!best || band.minDays > best.minDays)) best = band;
  return best;
}

/** The first day of the term `date` is in: the first of the latest term-start month on or before it. */
export function termStartOf(date: string, termStartMonths: readonly number[]): string {
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(5, 7));
  const starts = [...termStartMonths].sort((a, b) => a - b);
  const same = starts.filter((m) => m <= month);
  const [y, m] = same.length ? [year, same[same.length - 1]] : [year - 1, starts[starts.length - 1]];
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-01`;
}

/** Names in the order a reader expects (one collator: far cheaper than a localeCompare per comparison). */
const BY_NAME = new Intl.Collator('en');

/** round(n / 100) half up, for n ≥ 0: the rebate of days × rate × percent, in paise. */
const percentOf = (n: number): number => Math.floor((n * 2 + 100) / 200);

/** The rebate of `days` days at `percent` of `ratePaise`, rounded half up to the paisa. */
export const rebatePaise = (days: number, ratePaise: number, percent: number): number =>
  percentOf(days * ratePaise * percent);

/**
 * The month's bill by the daily rate. `leaves`: the members' approved leaves with a full day from the start of the
 * month's term to the month's end (earlier days count nothing here). Lines by name, then id.
 */
export function computeDailyBill(
  month: string,
  totalPaise: number,
  members: readonly DailyMember[],
  leaves: readonly DailyLeave[],
  rules: DailyRules,
): DailyBill {
  const { first, last } = monthBounds(month);
  const termStart = termStartOf(first, rules.termStartMonths);
  const dates: string[] = [];
  for (let date = first; date <= last; date = addDays(date, 1)) dates.push(date);
  const leavesOf = new Map<string, DailyLeave[]>();
  for (const leave of leaves) leavesOf.set(leave.userId, [...(leavesOf.get(leave.userId) ?? []), leave]);
  const shares: DailyShare[] = [];
  for (const member of members) {
    let days = 0;
    for (const date of dates) if (member.onRolls(date)) days += 1;
    const own = [...(leavesOf.get(member.userId) ?? [])].sort(
      (a, b) =>
        (a.startDate < b.startDate ? -1 : a.startDate > b.startDate ? 1 : 0) ||
        a.createdAt.getTime() - b.createdAt.getTime() ||
        (a.leaveId < b.leaveId ? -1 : 1),
    );
    let used = 0;
    const rebates: DailyRebate[] = [];
    // The member's first day on the rolls in the term, looked for only when a leave has a day off them (rare).
    let joined: string | undefined;
    const beforeJoining = (day: string): boolean => {
      if (joined === undefined) {
        joined = last;
        for (let date = termStart; date < last; date = addDays(date, 1))
          if (member.onRolls(date)) {
            joined = date;
            break;
          }
      }
      return day < joined;
    };
    for (const leave of own) {
      const band = bandOf(rules.bands, leave.fullDays.length);
      const percent = band?.percent ?? 0;
      let daysInMonth = 0;
      let rebatedDays = 0;
      let beforeJoiningDays = 0;
      let offRollsDays = 0;
      for (const day of leave.fullDays) {
        if (day < termStart || day > last) continue;
        const inMonth = day >= first;
        if (!member.onRolls(day)) {
          if (inMonth && beforeJoining(day)) beforeJoiningDays += 1;
          else if (inMonth) offRollsDays += 1;
          continue;
        }
        if (inMonth) daysInMonth += 1;
        if (percent === 0) continue;
        if (rules.daysPerTerm > 0 && used >= rules.daysPerTerm) continue;
        used += 1;
        if (inMonth) rebatedDays += 1;
      }
      if (daysInMonth === 0) continue;
      rebates.push({
        leaveId: leave.leaveId,
        startDate: leave.startDate,
        endDate: leave.endDate,
        startMealType: leave.startMealType,
        endMealType: leave.endMealType,
        leaveDays: leave.fullDays.length,
        daysInMonth,
        rebatedDays,
        percent,
        amountPaise: rebatePaise(rebatedDays, rules.ratePaise, percent),
        belowBands: band === undefined,
        beforeJoiningDays,
        offRollsDays,
      });
    }
    if (days === 0) continue;
    const grossPaise = days * rules.ratePaise;
    const rebate = rebates.reduce((sum, r) => sum + r.amountPaise, 0);
    shares.push({
      userId: member.userId,
      meals: member.meals,
      days,
      leaveDays: rebates.reduce((sum, r) => sum + r.daysInMonth, 0),
      rebatedDays: rebates.reduce((sum, r) => sum + r.rebatedDays, 0),
      grossPaise,
      rebatePaise: rebate,
      sharePaise: grossPaise - rebate,
      rebates,
    });
  }
  const names = new Map(members.map((m) => [m.userId, m.fullName]));
  shares.sort(
    (a, b) =>
      BY_NAME.compare(names.get(a.userId) ?? '', names.get(b.userId) ?? '') ||
      (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0),
  );
  const allocatedPaise = shares.reduce((sum, s) => sum + s.sharePaise, 0);
  const active = members.filter((m) => m.meals > 0);
  return {
    method: 'daily',
    ratePaise: rules.ratePaise,
    totalPaise,
    activeMembers: active.length,
    totalMeals: active.reduce((sum, m) => sum + m.meals, 0),
    allocatedPaise,
    // Negative for a surplus: the members pay more than the month's expenses.
    unallocatedPaise: totalPaise - allocatedPaise,
    shares,
  };
}

/** Σ share − the month's expenses: the mess's surplus (negative: a deficit). */
export const surplusPaise = (bill: DailyBill): number => bill.allocatedPaise - bill.totalPaise;

export const isDailyBill = (bill: MonthBill): bill is DailyBill => bill.method === 'daily';
