import type { MonthBill } from './cost-shares';

/** One member's charge for a closed month: their share plus their extras (issue 11), in paise. */
export interface MonthCharge {
  userId: string;
  sharePaise: number;
  extrasPaise: number;
  amountPaise: number;
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
  const charges = new Map<string, MonthCharge>();
  for (const share of bill.shares) {
    charges.set(share.userId, {
      userId: share.userId,
      sharePaise: share.sharePaise,
      extrasPaise: 0,
      amountPaise: share.sharePaise,
    });
  }
  for (const [userId, extras] of extrasPaise) {
    const charge = charges.get(userId) ?? { userId, sharePaise: 0, extrasPaise: 0, amountPaise: 0 };
    charge.extrasPaise += extras;
    charge.amountPaise += extras;
    charges.set(userId, charge);
  }
  return [...charges.values()].filter((c) => c.amountPaise > 0);
}
