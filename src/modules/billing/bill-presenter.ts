import { Injectable } from '@nestjs/common';
import { csvDocument } from '../../common/http/csv';
import { toRupees } from '../../common/money/money';
import { BillingService, BillView } from './billing.service';
import type { ShareMethod } from './cost-shares';
import type { BillDto, MyShareResponse } from './dto/billing.dto';
import { MonthCache } from './month-cache';
import { type DailyBill, type DailyShare, isDailyBill, surplusPaise } from './daily-charges';
import { billLines } from './month-charges';

/**
 * The bill at the HTTP edge: rupees, the JSON envelope already serialised and the CSV, cached with the bill (a
 * cached answer then costs no encoding of 2,000 lines).
 */
@Injectable()
export class BillPresenter {
  constructor(
    private readonly billing: BillingService,
    private readonly cache: MonthCache,
  ) {}

  async json(month: string, method: ShareMethod): Promise<string> {
    const key = await this.billing.cacheKeyOf(method);
    return this.cache.get(`bill.json:${month}:${key}`, [month], async () =>
      JSON.stringify({
        success: true,
        ...toBillDto(await this.billing.bill(month, method, { nested: true })),
      }),
    );
  }

  /** The bill as CSV: UTF-8 with a byte-order mark (spreadsheets read it as UTF-8), one row per member. */
  async csv(month: string, method: ShareMethod): Promise<string> {
    const key = await this.billing.cacheKeyOf(method);
    return this.cache.get(`bill.csv:${month}:${key}`, [month], async () => {
      const view = await this.billing.bill(month, method, { nested: true });
      if (isDailyBill(view.bill)) return dailyCsv(view, view.bill);
      return csvDocument([
        [
          'month',
          'member_id',
          'full_name',
          'meals',
          'share_inr',
          'extras_inr',
          'total_inr',
          'method',
          'closed',
        ],
        ...billLines(view.bill, view.extras).map((line) => [
          month,
          line.userId,
          view.names.get(line.userId) ?? '',
          String(line.meals),
          (line.sharePaise / 100).toFixed(2),
          (line.extrasPaise / 100).toFixed(2),
          (line.totalPaise / 100).toFixed(2),
          method,
          String(view.closed),
        ]),
      ]);
    });
  }

  /**
   * The member's own line of the month's bill, with the month's figures that explain it. `figures: 'on-bill'` (a
   * mess the member has left) gives those figures only for a month the member is on the bill of (a meal or an
   * extra): of any other month of that mess they see nothing but zeros.
   */
  async myShare(
    userId: string,
    month: string,
    method: ShareMethod,
    figures: 'always' | 'on-bill' = 'always',
  ): Promise<MyShareResponse> {
    const { bill, extras, closed } = await this.billing.bill(month, method);
    if (isDailyBill(bill)) {
      const own = bill.shares.find((s) => s.userId === userId);
      const extrasOwn = extras.get(userId) ?? 0;
      const seen = figures === 'always' || own !== undefined || extras.has(userId);
      return {
        success: true,
        month,
        method,
        closed,
        meals: own?.meals ?? 0,
        days: own?.days ?? 0,
        leaveDays: own?.leaveDays ?? 0,
        rebatedDays: own?.rebatedDays ?? 0,
        dailyRate: seen ? toRupees(bill.ratePaise) : 0,
        rebate: toRupees(own?.rebatePaise ?? 0),
        share: toRupees(own?.sharePaise ?? 0),
        extras: toRupees(extrasOwn),
        total: toRupees((own?.sharePaise ?? 0) + extrasOwn),
        totalExpenses: seen ? toRupees(bill.totalPaise) : 0,
        activeMembers: seen ? bill.activeMembers : 0,
        totalMeals: seen ? bill.totalMeals : 0,
      };
    }
    const line = bill.shares.find((s) => s.userId === userId);
    const sharePaise = line?.sharePaise ?? 0;
    const extrasPaise = extras.get(userId) ?? 0;
    const onBill = (line !== undefined && line.meals > 0) || extras.has(userId);
    if (figures === 'on-bill' && !onBill) {
      return {
        success: true,
        month,
        method,
        closed,
        meals: 0,
        share: 0,
        extras: 0,
        total: 0,
        totalExpenses: 0,
        activeMembers: 0,
        totalMeals: 0,
      };
    }
    return {
      success: true,
      month,
      method,
      closed,
      meals: line?.meals ?? 0,
      share: toRupees(sharePaise),
      extras: toRupees(extrasPaise),
      total: toRupees(sharePaise + extrasPaise),
      totalExpenses: toRupees(bill.totalPaise),
      activeMembers: bill.activeMembers,
      totalMeals: bill.totalMeals,
    };
  }
}

export function toBillDto(view: BillView): BillDto {
  const { bill } = view;
  const extrasPaise = [...view.extras.values()].reduce((sum, paise) => sum + paise, 0);
  if (isDailyBill(bill)) {
    const byId = new Map<string, DailyShare>(bill.shares.map((s) => [s.userId, s]));
    return {
      month: view.month,
      method: bill.method,
      dailyRate: toRupees(bill.ratePaise),
      totalExpenses: toRupees(bill.totalPaise),
      activeMembers: bill.activeMembers,
      totalMeals: bill.totalMeals,
      allocated: toRupees(bill.allocatedPaise),
      unallocated: toRupees(bill.unallocatedPaise),
      totalExtras: toRupees(extrasPaise),
      totalBilled: toRupees(bill.allocatedPaise + extrasPaise),
      surplus: toRupees(surplusPaise(bill)),
      closed: view.closed,
      computedAt: view.computedAt,
      shares: billLines(bill, view.extras).map((line) => {
        const daily = byId.get(line.userId);
        const fullName = view.names.get(line.userId) ?? '';
        return {
          userId: { _id: line.userId, fullName },
          fullName,
          meals: line.meals,
          days: daily?.days ?? 0,
          leaveDays: daily?.leaveDays ?? 0,
          rebatedDays: daily?.rebatedDays ?? 0,
          rebate: toRupees(daily?.rebatePaise ?? 0),
          share: toRupees(line.sharePaise),
          extras: toRupees(line.extrasPaise),
          total: toRupees(line.totalPaise),
        };
      }),
    };
  }
  return {
    month: view.month,
    method: bill.method,
    totalExpenses: toRupees(bill.totalPaise),
    activeMembers: bill.activeMembers,
    totalMeals: bill.totalMeals,
    allocated: toRupees(bill.allocatedPaise),
    unallocated: toRupees(bill.unallocatedPaise),
    totalExtras: toRupees(extrasPaise),
    totalBilled: toRupees(bill.allocatedPaise + extrasPaise),
    closed: view.closed,
    computedAt: view.computedAt,
    shares: billLines(bill, view.extras).map((line) => {
      const fullName = view.names.get(line.userId) ?? '';
      return {
        userId: { _id: line.userId, fullName },
        fullName,
        meals: line.meals,
        share: toRupees(line.sharePaise),
        extras: toRupees(line.extrasPaise),
        total: toRupees(line.totalPaise),
      };
    }),
  };
}

/** The daily rate's bill as CSV: one row per member, by name, with the days, the rebate and the share. */
function dailyCsv(view: BillView, bill: DailyBill): string {
  const byId = new Map<string, DailyShare>(bill.shares.map((s) => [s.userId, s]));
  const inr = (paise: number) => (paise / 100).toFixed(2);
  return csvDocument([
    [
      'month',
      'member_id',
      'full_name',
      'days',
      'leave_days',
      'rebated_days',
      'daily_rate_inr',
      'days_inr',
      'rebate_inr',
      'share_inr',
      'extras_inr',
      'total_inr',
      'method',
      'closed',
    ],
    ...billLines(bill, view.extras).map((line) => {
      const daily = byId.get(line.userId);
      return [
        view.month,
        line.userId,
        view.names.get(line.userId) ?? '',
        String(daily?.days ?? 0),
        String(daily?.leaveDays ?? 0),
        String(daily?.rebatedDays ?? 0),
        inr(bill.ratePaise),
        inr(daily?.grossPaise ?? 0),
        inr(daily?.rebatePaise ?? 0),
        inr(line.sharePaise),
        inr(line.extrasPaise),
        inr(line.totalPaise),
        'daily',
        String(view.closed),
      ];
    }),
  ]);
}
