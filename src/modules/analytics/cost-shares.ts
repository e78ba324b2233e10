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
export const SHARE_METHODS = ['spec', 'proportional'] as const;
export type ShareMethod = (typeof SHARE_METHODS)[number];

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

export function computeShares(totalPaise: number, members: MemberMeals[], method: ShareMethod): MonthBill {
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

  const total = BigInt(totalPaise);
  const meals = BigInt(totalMeals);
  // exact share_i = total × m_i / denominator
  const denominator = method === 'spec' ? BigInt(activeMembers) * meals : meals;
  const target = method === 'spec' ? divideHalfUp(total, BigInt(activeMembers)) : total;

  const parts = active.map((m) => {
    const numerator = total * BigInt(m.meals);
    return { member: m, floor: numerator / denominator, remainder: numerator % denominator };
  });
  let missing = target - parts.reduce((sum, p) => sum + p.floor, 0n);
  const byRemainder = [...parts].sort(
    (a, b) =>
      compareBig(b.remainder, a.remainder) ||
      b.member.meals - a.member.meals ||
      a.member.userId.localeCompare(b.member.userId),
  );
  const extra = new Set<MemberMeals>();
  for (const part of byRemainder) {
    if (missing <= 0n) break;
    extra.add(part.member);
    missing -= 1n;
  }
  const shares = parts.map((p) => ({
    userId: p.member.userId,
    meals: p.member.meals,
    sharePaise: Number(p.floor + (extra.has(p.member) ? 1n : 0n)),
  }));
  const allocatedPaise = Number(target);
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

function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (numerator * 2n + denominator) / (denominator * 2n);
}

const compareBig = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

/** Most meals first, then member id: a stable order for the bill and its CSV. */
const sortShares = (shares: MemberShare[]): MemberShare[] =>
  shares.sort((a, b) => b.meals - a.meals || a.userId.localeCompare(b.userId));
