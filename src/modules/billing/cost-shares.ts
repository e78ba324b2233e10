import type { ChargeMethod } from '../mess-config';

/**
 * The monthly bill, computed exactly in integer paise.
 *
 * - `spec` is the contract's rule taken literally: share = (total / active members) × (member meals / all meals).
 *   Its shares add up to total / active members, not to the total; what is left is reported as `unallocated`.
 * - `proportional`: share = total × member meals / all meals; the shares add up to the whole total.
 *
 * Each exact share is a fraction of a paisa. The amount to allocate is rounded once (half up) to whole paise, every
 * share is rounded down, and the paise still missing go one each to the largest remainders (ties: more meals
 * first, then member id), so `allocated + unallocated = total` to the paisa.
 */
export type ShareMethod = ChargeMethod;
/** The methods that share the month's expenses by meals (the daily rate is computed in daily-charges.ts). */
export type MealShareMethod = Exclude<ShareMethod, 'daily'>;

export interface MemberMeals {
  userId: string;
  meals: number;
}

export interface MemberShare {
  userId: string;
  meals: number;
  sharePaise: number;
}

export interface MonthBill {
  method: ShareMethod;
  totalPaise: number;
  activeMembers: number;
  totalMeals: number;
  allocatedPaise: number;
  unallocatedPaise: number;
  shares: MemberShare[];
}

export function computeShares(
  totalPaise: number,
  members: MemberMeals[],
  method: MealShareMethod,
): MonthBill {
  const active = members.filter((m) => m.meals > 0);
  const activeMembers = active.length;
  const totalMeals = active.reduce((sum, m) => sum + m.meals, 0);
  if (!Number.isSafeInteger(totalPaise) || totalPaise < 0)
    throw new RangeError('totalPaise must be a non-negative integer');

  if (activeMembers === 0 || totalPaise === 0) {
    return {
      method,
      totalPaise,
      activeMembers,
      totalMeals,
      allocatedPaise: 0,
      unallocatedPaise: totalPaise,
      shares: sortShares(active.map((m) => ({ userId: m.userId, meals: m.meals, sharePaise: 0 }))),
    };
  }

  const maxMeals = active.reduce((max, m) => Math.max(max, m.meals), 0);
  const denominatorOf = method === 'spec' ? activeMembers * totalMeals : totalMeals;
  // Plain integers are exact below 2^53 and several times faster than BigInt; huge months fall back to BigInt.
  const fits =
    totalPaise * Math.max(2, maxMeals) <= Number.MAX_SAFE_INTEGER && denominatorOf <= Number.MAX_SAFE_INTEGER;
  const { target, parts } = fits
    ? splitNumbers(totalPaise, active, denominatorOf, method === 'spec' ? activeMembers : 1)
    : splitBigInts(
        totalPaise,
        active,
        method === 'spec' ? BigInt(activeMembers) * BigInt(totalMeals) : BigInt(totalMeals),
        method === 'spec' ? activeMembers : 1,
      );

  // exact share_i = floor + remainder / denominator; the paise still missing go to the largest remainders
  let missing = target - parts.reduce((sum, p) => sum + p.floor, 0);
  const byRemainder = [...parts].sort(
    (a, b) =>
      b.compareRemainder(a) ||
      b.member.meals - a.member.meals ||
      compareIds(a.member.userId, b.member.userId),
  );
  for (const part of byRemainder) {
    if (missing <= 0) break;
    part.floor += 1;
    missing -= 1;
  }
  const shares = parts.map((p) => ({ userId: p.member.userId, meals: p.member.meals, sharePaise: p.floor }));
  const allocatedPaise = target;
  return {
    method,
    totalPaise,
    activeMembers,
    totalMeals,
    allocatedPaise,
    unallocatedPaise: totalPaise - allocatedPaise,
    shares: sortShares(shares),
  };
}

interface Part {
  member: MemberMeals;
  floor: number;
  compareRemainder(other: Part): number;
}

/** total × m_i / denominator as floor and remainder, and the amount to allocate (total / divisor, half up). */
function splitNumbers(total: number, active: MemberMeals[], denominator: number, divisor: number) {
  const target = Math.floor((total * 2 + divisor) / (divisor * 2));
  const parts = active.map((member) => {
    const numerator = total * member.meals;
    const remainder = numerator % denominator;
    const part: Part & { remainder: number } = {
      member,
      floor: (numerator - remainder) / denominator,
      remainder,
      compareRemainder: (other) => remainder - (other as Part & { remainder: number }).remainder,
    };
    return part;
  });
  return { target, parts: parts as Part[] };
}

function splitBigInts(total: number, active: MemberMeals[], denominator: bigint, divisor: number) {
  const big = BigInt(total);
  const d = BigInt(divisor);
  const target = Number((big * 2n + d) / (d * 2n));
  const parts = active.map((member) => {
    const numerator = big * BigInt(member.meals);
    const remainder = numerator % denominator;
    const part: Part & { remainder: bigint } = {
      member,
      floor: Number(numerator / denominator),
      remainder,
      compareRemainder: (other) => compareBig(remainder, (other as Part & { remainder: bigint }).remainder),
    };
    return part;
  });
  return { target, parts: parts as Part[] };
}

const compareBig = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);
/** Ids are ASCII (UUIDs): plain code-unit order, far cheaper than a locale-aware compare. */
const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Most meals first, then member id: a stable order for the bill and its CSV. */
const sortShares = (shares: MemberShare[]): MemberShare[] =>
  shares.sort((a, b) => b.meals - a.meals || compareIds(a.userId, b.userId));
