import { formatRupees } from '../../common/money/money';
import type { ChargeItems } from './accounts.schema';

/*
 * A month's charge, line by line, as the statement prints it in JSON (`items`), CSV and PDF.
 */

/** One itemised line of a month's charge: its words, and quantity × unit price = amount where that applies. */
export interface ChargeItemLine {
  particulars: string;
  quantity: number;
  unitPricePaise: number | null;
  amountPaise: number;
}

/**
 * What a month's charge is made of, line by line: the meals (× the month's rate per meal) and each extra by item. The
 * amounts add up to the charge. Charges posted before their items were recorded have none.
 */
export function chargeItemLines(items: ChargeItems | null | undefined): ChargeItemLine[] {
  if (!items) return [];
  const lines: ChargeItemLine[] = [];
  if (items.daily) {
    lines.push(...dailyLines(items.daily));
  } else if (items.meals > 0 || items.mealsPaise > 0) {
    const rate = items.ratePerMealPaise;
    lines.push({
      particulars: mealsParticulars(items),
      quantity: items.meals,
      unitPricePaise: rate,
      amountPaise: items.mealsPaise,
    });
  }
  for (const extra of items.extras) {
    lines.push({
      particulars: `Extra: ${extra.item} ${extra.quantity} × ${formatRupees(extra.unitPricePaise)} = ${formatRupees(extra.amountPaise)}`,
      quantity: extra.quantity,
      unitPricePaise: extra.unitPricePaise,
      amountPaise: extra.amountPaise,
    });
  }
  return lines;
}

type DailyItems = NonNullable<ChargeItems['daily']>;
type LeaveItem = DailyItems['rebates'][number];

/** The leaves of a charge that rebate something: what `breakdown.daily.rebates` lists. */
export const rebatesOf = (daily: DailyItems): LeaveItem[] => daily.rebates.filter((r) => r.amountPaise > 0);

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * A charge by the daily rate (extension 2.3): `Days on the rolls: 31 × ₹120.00 = ₹3,720.00`, then each leave with
 * days in the month: a rebate as a negative line, `Rebate: leave 2026-03-05 Breakfast to 2026-03-08 Dinner, 4 days ×
 * ₹120.00 × 75 % = −₹360.00` (marked as rounded to the paisa when the product is not whole paise), and a leave that
 * rebates nothing with why, `Leave 2026-03-03 Breakfast to 2026-03-04 Dinner, 2 days: below the first band, no
 * rebate`. A leave's note says what counted fewer of its days: those before the member joined the mess or off its
 * rolls, the term's cap.
 */
function dailyLines(daily: DailyItems): ChargeItemLine[] {
  const lines: ChargeItemLine[] = [
    {
      particulars: `Days on the rolls: ${daily.days} × ${formatRupees(daily.ratePaise)} = ${formatRupees(daily.daysPaise)}`,
      quantity: daily.days,
      unitPricePaise: daily.ratePaise,
      amountPaise: daily.daysPaise,
    },
  ];
  for (const r of daily.rebates) {
    const dates = `${r.startDate} ${r.startMealType} to ${r.endDate} ${r.endMealType}`;
    if (r.amountPaise === 0) {
      lines.push({
        particulars: `Leave ${dates}${note(r, false)}, ${noRebate(r)}`,
        quantity: r.rebatedDays,
        unitPricePaise: null,
        amountPaise: 0,
      });
      continue;
    }
    const exact = (r.rebatedDays * daily.ratePaise * r.percent) % 100 === 0;
    lines.push({
      particulars:
        `Rebate: leave ${dates}${note(r, true)}, ` +
        `${plural(r.rebatedDays, 'day')} × ${formatRupees(daily.ratePaise)} × ${r.percent} % = ${formatRupees(-r.amountPaise)}` +
        (exact ? '' : ' (rounded to the paisa)'),
      quantity: r.rebatedDays,
      unitPricePaise: null,
      amountPaise: -r.amountPaise,
    });
  }
  return lines;
}

/** Why a leave with days in the month rebates nothing. */
function noRebate(r: LeaveItem): string {
  const days = plural(r.leaveDays ?? r.days, 'day');
  if (r.belowBands) return `${days}: below the first band, no rebate`;
  if (r.percent === 0) return `${days}: a 0 % band, no rebate`;
  return `${plural(r.days, 'day')}: past the term's cap, no rebate`;
}

/**
 * What counted fewer of a leave's days in the month, in brackets: `(8 leave days, 3 before joining the mess count
 * nothing)`, `(4 leave days, 1 under the term's cap)`; nothing when every day counted.
 */
function note(r: LeaveItem, rebated: boolean): string {
  const before = r.beforeJoiningDays ?? 0;
  const off = r.offRollsDays ?? 0;
  const parts: string[] = [];
  if (before) parts.push(`${before} before joining the mess count nothing`);
  if (off) parts.push(`${off} off the mess's rolls count nothing`);
  if (rebated && r.rebatedDays < r.days) parts.push(`${r.rebatedDays} under the term's cap`);
  return parts.length ? ` (${plural(r.days + before + off, 'leave day')}, ${parts.join(', ')})` : '';
}

/**
 * The meals line as an equation that holds: `Meals: 15 of 450 meals × ₹2,34,756.00 = ₹7,825.19`, the share less than
 * a paisa from the exact product. The rate per meal, when it is not exact, is marked as rounded; a share that is not
 * a whole number of paise says how it was rounded (why two members with as many meals may differ by a paisa).
 * Charges closed before the month's figures were kept with them print the rate, marked as rounded when it may be.
 */
function mealsParticulars(items: ChargeItems): string {
  const rate = items.ratePerMealPaise;
  const share = formatRupees(items.mealsPaise);
  const { allMeals, monthTotalPaise, activeMembers } = items;
  if (
    allMeals === undefined ||
    monthTotalPaise === undefined ||
    activeMembers === undefined ||
    allMeals === 0
  ) {
    if (rate === null) return `Meals: ${items.meals} = ${share}`;
    const exact = items.meals * rate === items.mealsPaise;
    return exact
      ? `Meals: ${items.meals} × ${formatRupees(rate)} per meal = ${share}`
      : `Meals: ${items.meals} at about ${formatRupees(rate)} per meal (rate rounded to the paisa) = ${share}`;
  }
  const spec = items.method === 'spec';
  const divisor = BigInt(spec ? allMeals * activeMembers : allMeals);
  const of = `${items.meals} of ${allMeals} meals × ${formatRupees(monthTotalPaise)}`;
  const equation = spec ? `${of} ÷ ${activeMembers} members` : of;
  const notes: string[] = [];
  if (rate !== null) {
    const rateExact = BigInt(monthTotalPaise) % divisor === 0n;
    notes.push(
      rateExact ? `${formatRupees(rate)} per meal` : `about ${formatRupees(rate)} per meal, rounded`,
    );
  }
  if ((BigInt(items.meals) * BigInt(monthTotalPaise)) % divisor !== 0n) {
    notes.push('share rounded to the paisa by the largest remainder');
  }
  return `Meals: ${equation} = ${share}${notes.length ? ` (${notes.join('; ')})` : ''}`;
}
