import { badRequest } from '../../common/errors/api-error';
import { decimalTextToPaise, toPaise, toRupees } from '../../common/money/money';
import { normalizeIndianPhone } from '../../common/phone/phone';
import { MessConfigDto, SetupMessDto } from './dto/mess-config.dto';
import {
  ChargeMethod,
  ExtraItem,
  LeavePolicy,
  MealTime,
  MessConfigRow,
  RebateBand,
} from './mess-config.schema';
import { UNCONFIGURED_NAME } from '../messes';
import { messFieldProblems } from './mess-field-rules';

/*
 * The configuration's shapes: the defaults, a setup body as a row, a row as the API and the audit trail show it, and
 * the rules across fields a setup body must keep.
 */

/** The leave rules of a mess that has not set its own (extension 2.1). */
export const DEFAULT_LEAVE_POLICY: LeavePolicy = {
  minDays: 1,
  applyBeforeHours: 12,
  maxDaysPerMonth: 0,
  requiresApproval: true,
};

/** Extension 2.3: the daily rate's rebate rules of a mess that has not set its own. */
export const DEFAULT_REBATE_BANDS: RebateBand[] = [{ minDays: 1, percent: 100 }];
export const DEFAULT_TERM_START_MONTHS: number[] = [1, 7];

/** The daily rate's settings as billing reads them: rate in paise (null: none), bands, cap, terms. */
export interface DailyRateSettings {
  dailyRatePaise: number | null;
  rebateBands: RebateBand[];
  rebateDaysPerTerm: number;
  termStartMonths: number[];
}

export const dailySettingsOf = (row: MessConfigRow | undefined): DailyRateSettings => ({
  dailyRatePaise: row?.dailyRatePaise ?? null,
  rebateBands: row?.rebateBands ?? DEFAULT_REBATE_BANDS,
  rebateDaysPerTerm: row?.rebateDaysPerTerm ?? 0,
  termStartMonths: row?.termStartMonths ?? DEFAULT_TERM_START_MONTHS,
});

/** What applies until an admin runs the setup. */
export const DEFAULT_MESS_CONFIG = {
  messName: UNCONFIGURED_NAME,
  description: '',
  email: '',
  phone: '',
  expenseCategories: ['Groceries', 'Vegetables', 'Dairy', 'Gas', 'Staff', 'Maintenance', 'Other'],
  mealTimes: [
    { name: 'Breakfast', startTime: '07:30', endTime: '09:30' },
    { name: 'Lunch', startTime: '12:30', endTime: '14:30' },
    { name: 'Dinner', startTime: '19:30', endTime: '21:30' },
  ] as MealTime[],
  monthlyBudget: null as number | null,
  chargeMethod: 'proportional' as ChargeMethod,
  rebateBands: DEFAULT_REBATE_BANDS,
  rebateDaysPerTerm: 0,
  termStartMonths: DEFAULT_TERM_START_MONTHS,
  leavePolicy: DEFAULT_LEAVE_POLICY,
  extraItems: [] as ExtraItem[],
};

/** A setup body as the row stores it. */
export const values = (body: SetupMessDto) => ({
  messName: body.messName,
  description: body.description ?? '',
  email: body.email,
  phone: body.phone,
  expenseCategories: body.expenseCategories,
  mealTimes: body.mealTimes.map(({ name, startTime, endTime }) => ({ name, startTime, endTime })),
  monthlyBudget: body.monthlyBudget === undefined ? null : body.monthlyBudget.toFixed(2),
  // PUT replaces the whole configuration: left out, it returns to its default.
  chargeMethod: body.chargeMethod ?? DEFAULT_MESS_CONFIG.chargeMethod,
  // Left out of a PUT: no rate, the default bands, no cap, the default terms.
  dailyRatePaise: body.dailyRate === undefined || body.dailyRate === null ? null : toPaise(body.dailyRate)!,
  rebateBands: body.rebateBands
    ? [...body.rebateBands]
        .map(({ minDays, percent }) => ({ minDays, percent }))
        .sort((a, b) => a.minDays - b.minDays)
    : null,
  rebateDaysPerTerm: body.rebateDaysPerTerm ?? 0,
  termStartMonths: body.termStartMonths ? [...body.termStartMonths].sort((a, b) => a - b) : null,
  // PUT replaces the whole configuration: a policy left out returns to the defaults, a window left out is removed.
  leavePolicy: body.leavePolicy
    ? {
        minDays: body.leavePolicy.minDays,
        applyBeforeHours: body.leavePolicy.applyBeforeHours,
        maxDaysPerMonth: body.leavePolicy.maxDaysPerMonth,
        requiresApproval: body.leavePolicy.requiresApproval,
      }
    : null,
  markingWindow: body.markingWindow
    ? {
        daysAhead: body.markingWindow.daysAhead,
        closesMinutesAfterEnd: body.markingWindow.closesMinutesAfterEnd,
      }
    : null,
  // The DTO has refused anything that is not whole paise.
  extraItems: (body.extraItems ?? []).map((i) => ({ name: i.name, pricePaise: toPaise(i.price)! })),
});

/** The rules across fields that the DTO cannot say (mess-field-rules.ts): a 400 naming each field they refuse. */
export function validateSemantics(body: SetupMessDto): void {
  const details = messFieldProblems(body as unknown as Record<string, unknown>);
  if (details.length) throw badRequest('Validation failed', details);
}

export const toDto = (row: MessConfigRow): MessConfigDto => ({
  _id: row.id,
  messName: row.messName,
  description: row.description,
  email: row.email,
  // Rows saved before the contact phone was validated may hold another spelling of the same number.
  phone: normalizeIndianPhone(row.phone) ?? row.phone,
  expenseCategories: row.expenseCategories,
  mealTimes: row.mealTimes,
  monthlyBudget: row.monthlyBudget === null ? null : Number(row.monthlyBudget),
  chargeMethod: row.chargeMethod,
  ...(row.dailyRatePaise !== null ? { dailyRate: toRupees(row.dailyRatePaise) } : {}),
  rebateBands: row.rebateBands ?? DEFAULT_REBATE_BANDS,
  rebateDaysPerTerm: row.rebateDaysPerTerm,
  termStartMonths: row.termStartMonths ?? DEFAULT_TERM_START_MONTHS,
  leavePolicy: row.leavePolicy ?? DEFAULT_LEAVE_POLICY,
  ...(row.markingWindow ? { markingWindow: row.markingWindow } : {}),
  extraItems: row.extraItems.map(toItemDto),
  configured: true,
  createdBy: row.createdBy,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** The configuration as the audit trail keeps it; the budget in paise like all audited money. */
export const auditSnapshot = (row: MessConfigRow) => ({
  messName: row.messName,
  description: row.description,
  email: row.email,
  phone: row.phone,
  expenseCategories: row.expenseCategories,
  mealTimes: row.mealTimes,
  monthlyBudgetPaise: row.monthlyBudget === null ? null : (decimalTextToPaise(row.monthlyBudget) ?? null),
  chargeMethod: row.chargeMethod,
  dailyRatePaise: row.dailyRatePaise,
  rebateBands: row.rebateBands,
  rebateDaysPerTerm: row.rebateDaysPerTerm,
  termStartMonths: row.termStartMonths,
  extraItems: row.extraItems,
});

export const toItemDto = (item: ExtraItem) => ({ name: item.name, price: toRupees(item.pricePaise) });
