import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PaginationDto } from '../../../common/http/paging';
import { toRupees } from '../../../common/money/money';
import { chargeItemLines, rebatesOf } from '../charge-item-lines';
import { type IssuedStatement } from '../statement-documents';
import type { AccountRow } from '../accounts.repository';
import {
  DIRECTIONS,
  ENTRY_KINDS,
  PAYMENT_METHODS,
  type AccountEntryRow,
  type Direction,
  type EntryKind,
  type PaymentMethod,
} from '../accounts.schema';
import type { EntryResult } from '../ledger.service';

export class EntryDto {
  @ApiProperty() _id: string;
  @ApiProperty() userId: string;
  @ApiProperty({ enum: ENTRY_KINDS }) kind: EntryKind;
  @ApiProperty({ enum: DIRECTIONS }) direction: Direction;
  @ApiProperty({ description: 'Rupees, > 0', example: 3250.5 }) amount: number;
  @ApiProperty({
    nullable: true,
    type: String,
    example: '2025-03',
    description: 'On charges and their reversals',
  })
  month: string | null;
  @ApiProperty({ format: 'date' }) date: string;
  @ApiProperty({ nullable: true, enum: PAYMENT_METHODS, description: 'On payments' })
  method: PaymentMethod | null;
  @ApiProperty({ nullable: true, type: String }) reference: string | null;
  @ApiProperty({ nullable: true, type: String }) note: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'The entry a reversal undoes' }) reverses:
    string | null;
  @ApiProperty({ nullable: true, type: String }) recordedBy: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class EntryResponse {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: EntryDto }) entry: EntryDto;
  @ApiProperty({ description: 'Rupees after this entry: > 0 due, < 0 credit', example: 1200 })
  balance: number;
}

class MemberRefDto {
  @ApiProperty() _id: string;
  @ApiProperty() fullName: string;
}

/** An entry in a list: `recordedBy` as it is, and who that is (as other lists nest `{_id, fullName}`). */
class ListedEntryDto extends EntryDto {
  @ApiProperty({
    type: MemberRefDto,
    nullable: true,
    description:
      'Who recorded the entry (`recordedBy` with the name); null when the service did (a close, a gateway)',
  })
  recordedByUser: MemberRefDto | null;
}

export class AccountResponse {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ description: 'Rupees: > 0 due, < 0 credit, 0 settled' }) balance: number;
  @ApiProperty({ type: [ListedEntryDto], description: 'Newest first (date, then order of recording)' })
  entries: ListedEntryDto[];
  @ApiProperty({ type: PaginationDto }) pagination: PaginationDto;
}

class AccountLineDto {
  @ApiProperty({ type: MemberRefDto }) userId: MemberRefDto;
  @ApiProperty({ description: 'Rupees: > 0 due, < 0 credit' }) balance: number;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'date',
    description: 'Date of the latest payment not reversed',
  })
  lastPaymentAt: string | null;
}

class AccountTotalsDto {
  @ApiProperty({ description: 'Σ of the balances due (rupees), over every matching account' }) due: number;
  @ApiProperty({ description: 'Σ of the credits (rupees, positive), over every matching account' })
  credit: number;
}

export class AccountsResponse {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: [AccountLineDto], description: 'Largest due first' }) accounts: AccountLineDto[];
  @ApiProperty({ type: AccountTotalsDto }) totals: AccountTotalsDto;
  @ApiProperty({ type: PaginationDto }) pagination: PaginationDto;
}

export class ChargeItemDto {
  @ApiProperty({
    example: 'Meals: 25 of 450 meals × ₹18,000.00 = ₹1,000.00 (₹40.00 per meal)',
    description:
      'As the PDF and CSV print it. A share by meals reads `meals of all meals × the month total = share` (spec: ' +
      '`… ÷ active members`), less than a paisa from the exact product; a rate per meal that is not a whole number ' +
      'of paise is marked `about …, rounded`, and a share rounded by the largest-remainder rule says so',
  })
  particulars: string;
  @ApiProperty({ example: 25, description: "Meals, or the extra's quantity" }) quantity: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 40,
    description:
      "Rupees: the month's rate per meal (rounded to the paisa; null when nobody ate), or the extra's price",
  })
  unitPrice: number | null;
  @ApiProperty({ example: 1000, description: 'Rupees; the items of a charge add up to its amount' })
  amount: number;
}

export class ChargeExtraDto {
  @ApiProperty({ example: 'Egg' }) item: string;
  @ApiProperty({ example: 3 }) quantity: number;
  @ApiProperty({ example: 10, description: 'Rupees' }) unitPrice: number;
  @ApiProperty({ example: 30, description: 'Rupees' }) amount: number;
}

export class ChargeRebateDto {
  @ApiProperty({ format: 'date', example: '2026-03-05' }) startDate: string;
  @ApiProperty({ format: 'date', example: '2026-03-08' }) endDate: string;
  @ApiProperty({ example: 'Breakfast' }) startMealType: string;
  @ApiProperty({ example: 'Dinner' }) endMealType: string;
  @ApiProperty({ example: 4, description: "The leave's full days in the month on the rolls" }) days: number;
  @ApiProperty({ example: 4, description: 'Of those, the days rebated (after the term cap)' })
  rebatedDays: number;
  @ApiProperty({ example: 75, description: "The band's percent of the daily rate" }) percent: number;
  @ApiProperty({
    example: 360,
    description: 'Rupees: rebatedDays × dailyRate × percent / 100, rounded half up to the paisa',
  })
  amount: number;
}

export class ChargeDailyDto {
  @ApiProperty({ example: 31, description: 'Days on the rolls in the month' }) days: number;
  @ApiProperty({ example: 120, description: 'Rupees a day' }) dailyRate: number;
  @ApiProperty({ example: 3720, description: 'Rupees: days × dailyRate' }) daysAmount: number;
  @ApiProperty({ type: [ChargeRebateDto], description: 'Each leave that rebates something' })
  rebates: ChargeRebateDto[];
  @ApiProperty({ example: 360, description: 'Rupees: Σ rebates' }) rebateAmount: number;
}

export class ChargeBreakdownDto {
  @ApiProperty({ enum: ['spec', 'proportional', 'daily'], description: 'The charge method of the close' })
  method: string;
  @ApiProperty({ example: 25 }) meals: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 40,
    description:
      "Rupees: the month's cost per meal under the method, rounded to the paisa; the share is the exact product " +
      'rounded as the bill rounds, so meals × rate can differ from mealsAmount by a few paise',
  })
  ratePerMeal: number | null;
  @ApiProperty({ example: 1000, description: "Rupees: the member's share for the meals" })
  mealsAmount: number;
  @ApiProperty({ type: [ChargeExtraDto] }) extras: ChargeExtraDto[];
  @ApiProperty({ example: 30, description: 'Rupees' }) extrasAmount: number;
  @ApiPropertyOptional({
    type: ChargeDailyDto,
    description:
      'A charge by the daily rate (extension 2.3): days × rate less each rebate; mealsAmount is then the share ' +
      '(daysAmount − rebateAmount)',
  })
  daily?: ChargeDailyDto;
}

class StatementLineDto extends ListedEntryDto {
  @ApiProperty({ description: 'Rupees after this entry' }) balance: number;
  @ApiPropertyOptional({
    type: ChargeBreakdownDto,
    nullable: true,
    description:
      "A month's charge: what it is made of, frozen by the close (null on charges from before this was kept)",
  })
  breakdown?: ChargeBreakdownDto | null;
  @ApiPropertyOptional({
    type: [ChargeItemDto],
    description:
      "A month's charge: its lines as the PDF and CSV print them (meals × rate, or days × the daily rate and " +
      'each leave: its rebate, or an amount-0 line saying why it rebates nothing; each extra)',
  })
  items?: ChargeItemDto[];
}

export class StatementIssuerDto {
  @ApiProperty({ example: 'Hostel 4 Mess' }) name: string;
  @ApiProperty({ example: 'mess.office@college.edu', description: 'Empty when not configured' })
  email: string;
  @ApiProperty({ example: '+919876543210', description: 'Empty when not configured' }) phone: string;
}

export class StatementResponse {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: MemberRefDto }) member: MemberRefDto;
  @ApiProperty({ example: '2025-01' }) from: string;
  @ApiProperty({ example: '2025-12' }) to: string;
  @ApiProperty({ description: 'Rupees: the balance of the entries dated before `from`' }) opening: number;
  @ApiProperty({ type: [StatementLineDto], description: 'By date, then order of recording' })
  entries: StatementLineDto[];
  @ApiProperty({ description: 'Rupees: opening + Σ debits − Σ credits of the period' }) closing: number;
  @ApiProperty({ description: 'Σ debits of the period, rupees' }) totalDebit: number;
  @ApiProperty({ description: 'Σ credits of the period, rupees' }) totalCredit: number;
  @ApiProperty({ type: String, nullable: true, example: 'CS21B042', description: "The member's college id" })
  collegeId: string | null;
  @ApiProperty({
    type: StatementIssuerDto,
    description: 'The mess that issues the statement: its name and contact',
  })
  mess: StatementIssuerDto;
}

export const toEntryDto = (row: AccountEntryRow): EntryDto => ({
  _id: row.id,
  userId: row.userId,
  kind: row.kind,
  direction: row.direction,
  amount: toRupees(row.amountPaise),
  month: row.month,
  date: row.date,
  method: row.method,
  reference: row.reference,
  note: row.note,
  reverses: row.reverses,
  recordedBy: row.recordedBy,
  createdAt: row.createdAt.toISOString(),
});

const toListedEntryDto = (row: AccountEntryRow, recorders: Map<string, string>): ListedEntryDto => ({
  ...toEntryDto(row),
  recordedByUser: row.recordedBy
    ? { _id: row.recordedBy, fullName: recorders.get(row.recordedBy) ?? '' }
    : null,
});

export const toEntryResponse = (result: EntryResult): EntryResponse => ({
  success: true,
  entry: toEntryDto(result.entry),
  balance: toRupees(result.balancePaise),
});

export function toAccountsResponse(
  list: { rows: AccountRow[]; total: number; duePaise: number; creditPaise: number },
  page: { page: number; limit: number },
): AccountsResponse {
  return {
    success: true,
    accounts: list.rows.map((r) => ({
      userId: { _id: r.userId, fullName: r.fullName },
      balance: toRupees(r.balancePaise),
      lastPaymentAt: r.lastPaymentAt,
    })),
    totals: { due: toRupees(list.duePaise), credit: toRupees(list.creditPaise) },
    pagination: { page: page.page, limit: page.limit, total: list.total },
  };
}

export function toAccountResponse(
  account: {
    balancePaise: number;
    entries: AccountEntryRow[];
    total: number;
    recorders: Map<string, string>;
  },
  page: { page: number; limit: number },
): AccountResponse {
  return {
    success: true,
    balance: toRupees(account.balancePaise),
    entries: account.entries.map((e) => toListedEntryDto(e, account.recorders)),
    pagination: { page: page.page, limit: page.limit, total: account.total },
  };
}

export function toStatementResponse(s: IssuedStatement): StatementResponse {
  return {
    success: true,
    member: { _id: s.userId, fullName: s.fullName },
    from: s.from,
    to: s.to,
    opening: toRupees(s.openingPaise),
    entries: s.lines.map(({ entry, balancePaise }) => ({
      ...toListedEntryDto(entry, s.recorders),
      balance: toRupees(balancePaise),
      ...(entry.kind === 'charge'
        ? {
            breakdown: entry.items
              ? {
                  method: entry.items.method,
                  meals: entry.items.meals,
                  ratePerMeal:
                    entry.items.ratePerMealPaise === null ? null : toRupees(entry.items.ratePerMealPaise),
                  mealsAmount: toRupees(entry.items.mealsPaise),
                  extras: entry.items.extras.map((e) => ({
                    item: e.item,
                    quantity: e.quantity,
                    unitPrice: toRupees(e.unitPricePaise),
                    amount: toRupees(e.amountPaise),
                  })),
                  extrasAmount: toRupees(entry.items.extrasPaise),
                  ...(entry.items.daily
                    ? {
                        daily: {
                          days: entry.items.daily.days,
                          dailyRate: toRupees(entry.items.daily.ratePaise),
                          daysAmount: toRupees(entry.items.daily.daysPaise),
                          rebates: rebatesOf(entry.items.daily).map((r) => ({
                            startDate: r.startDate,
                            endDate: r.endDate,
                            startMealType: r.startMealType,
                            endMealType: r.endMealType,
                            days: r.days,
                            rebatedDays: r.rebatedDays,
                            percent: r.percent,
                            amount: toRupees(r.amountPaise),
                          })),
                          rebateAmount: toRupees(entry.items.daily.rebatePaise),
                        },
                      }
                    : {}),
                }
              : null,
            items: chargeItemLines(entry.items).map((item) => ({
              particulars: item.particulars,
              quantity: item.quantity,
              unitPrice: item.unitPricePaise === null ? null : toRupees(item.unitPricePaise),
              amount: toRupees(item.amountPaise),
            })),
          }
        : {}),
    })),
    closing: toRupees(s.closingPaise),
    totalDebit: toRupees(s.totalDebitPaise),
    totalCredit: toRupees(s.totalCreditPaise),
    collegeId: s.collegeId,
    mess: { name: s.issuer.messName, email: s.issuer.email, phone: s.issuer.phone },
  };
}
