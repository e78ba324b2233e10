import type { ChargeDailyItems } from '../accounts';
import type { MemberShare, MonthBill } from './cost-shares';
import { type DailyShare, isDailyBill } from './daily-charges';

/** One member's line of a month's bill: their share, their extras and what they owe for the month, in paise. */
export interface BillLine {
  userId: string;
  meals: number;
  sharePaise: number;
  extrasPaise: number;
  /** share + extras */
  totalPaise: number;
}

/** One member's charge for a closed month: their share plus their extras (issue 11), in paise. */
export interface MonthCharge {
  userId: string;
  sharePaise: number;
  extrasPaise: number;
  amountPaise: number;
}

/**
 * Every line of the bill: the members with meals in the bill's order, each with their extras, then the members
 * with extras and no meals (share 0: extras do not make a member active), by id. What the bill JSON, its CSV and
 * the close's charges are all made from, so they agree to the paisa.
 */
export function billLines(bill: MonthBill, extrasPaise: ReadonlyMap<string, number> = new Map()): BillLine[] {
  const lines = bill.shares.map((share) => {
    const extras = extrasPaise.get(share.userId) ?? 0;
    return {
      userId: share.userId,
      meals: share.meals,
      sharePaise: share.sharePaise,
      extrasPaise: extras,
      totalPaise: share.sharePaise + extras,
    };
  });
  const billed = new Set(bill.shares.map((share) => share.userId));
  const extrasOnly = [...extrasPaise]
    .filter(([userId]) => !billed.has(userId))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([userId, extras]) => ({
      userId,
      meals: 0,
      sharePaise: 0,
      extrasPaise: extras,
      totalPaise: extras,
    }));
  return [...lines, ...extrasOnly];
}

/**
 * The charges a close posts: every billed member's share under the charge method plus their extras of the month
 * (a member with extras and no meals is charged the extras). Members whose charge is 0 get no entry (an entry's
 * amount is always > 0). Σ amountPaise = the bill's allocated paise + Σ extras, exactly.
 */
export function monthCharges(
  bill: MonthBill,
  extrasPaise: ReadonlyMap<string, number> = new Map(),
): MonthCharge[] {
  return billLines(bill, extrasPaise)
    .filter((line) => line.totalPaise > 0)
    .map((line) => ({
      userId: line.userId,
      sharePaise: line.sharePaise,
      extrasPaise: line.extrasPaise,
      amountPaise: line.totalPaise,
    }));
}

/** An extra line of a charge: an item at one unit price, the quantity taken in the month and what it came to. */
export interface ChargeExtraItem {
  item: string;
  quantity: number;
  unitPricePaise: number;
  amountPaise: number;
}

/**
 * The month's cost per meal under the bill's method, rounded half up to the paisa: proportional, total ÷ all meals;
 * spec, (total ÷ active members) ÷ all meals. Null when nobody ate.
 */
export function ratePerMealPaise(bill: MonthBill): number | null {
  if (isDailyBill(bill)) return null;
  if (bill.totalMeals === 0 || bill.activeMembers === 0) return null;
  const denominator = bill.method === 'spec' ? bill.activeMembers * bill.totalMeals : bill.totalMeals;
  return Math.floor((bill.totalPaise * 2 + denominator) / (denominator * 2));
}

/** What each charge of a close is made of: the member's meals and share, and their extras by item. */
export function chargeItems(
  bill: MonthBill,
  charge: MonthCharge,
  extras: readonly ChargeExtraItem[],
): {
  method: string;
  meals: number;
  ratePerMealPaise: number | null;
  mealsPaise: number;
  allMeals: number;
  monthTotalPaise: number;
  activeMembers: number;
  extras: ChargeExtraItem[];
  extrasPaise: number;
  daily?: ChargeDailyItems;
} {
  const share = shareOf(bill, charge.userId);
  const dailyShare = isDailyBill(bill) ? (share as DailyShare | undefined) : undefined;
  const daily: ChargeDailyItems | undefined = isDailyBill(bill)
    ? {
        days: dailyShare?.days ?? 0,
        ratePaise: bill.ratePaise,
        daysPaise: dailyShare?.grossPaise ?? 0,
        // Every leave with days in the month, so that the statement says why one rebates nothing or counts fewer days.
        rebates: (dailyShare?.rebates ?? []).map((r) => ({
          leaveId: r.leaveId,
          startDate: r.startDate,
          endDate: r.endDate,
          startMealType: r.startMealType,
          endMealType: r.endMealType,
          days: r.daysInMonth,
          rebatedDays: r.rebatedDays,
          percent: r.percent,
          amountPaise: r.amountPaise,
          leaveDays: r.leaveDays,
          belowBands: r.belowBands,
          beforeJoiningDays: r.beforeJoiningDays,
          offRollsDays: r.offRollsDays,
        })),
        rebatePaise: dailyShare?.rebatePaise ?? 0,
      }
    : undefined;
  return {
    method: bill.method,
    meals: share?.meals ?? 0,
    ratePerMealPaise: ratePerMealPaise(bill),
    mealsPaise: charge.sharePaise,
    // What the share is a share of, so that a statement prints an equation that holds (not meals × a rounded rate).
    allMeals: bill.totalMeals,
    monthTotalPaise: bill.totalPaise,
    activeMembers: bill.activeMembers,
    extras: extras.map(({ item, quantity, unitPricePaise, amountPaise }) => ({
      item,
      quantity,
      unitPricePaise,
      amountPaise,
    })),
    extrasPaise: charge.extrasPaise,
    ...(daily ? { daily } : {}),
  };
}

/** Each bill's shares by member, made once per bill: a close itemises every charge of a 2,000-member bill. */
const sharesById = new WeakMap<MonthBill, Map<string, MemberShare>>();

function shareOf(bill: MonthBill, userId: string): MemberShare | undefined {
  let index = sharesById.get(bill);
  if (!index) {
    index = new Map(bill.shares.map((s) => [s.userId, s]));
    sharesById.set(bill, index);
  }
  return index.get(userId);
}
