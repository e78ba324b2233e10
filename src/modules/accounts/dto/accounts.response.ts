import { ApiProperty } from '@nestjs/swagger';
import { PaginationDto } from '../../../common/http/paging';
import { toRupees } from '../../../common/money/money';
import type { Statement } from '../accounts.queries';
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

export class AccountResponse {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ description: 'Rupees: > 0 due, < 0 credit, 0 settled' }) balance: number;
  @ApiProperty({ type: [EntryDto], description: 'Newest first (date, then order of recording)' })
  entries: EntryDto[];
  @ApiProperty({ type: PaginationDto }) pagination: PaginationDto;
}

class MemberRefDto {
  @ApiProperty() _id: string;
  @ApiProperty() fullName: string;
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

class StatementLineDto extends EntryDto {
  @ApiProperty({ description: 'Rupees after this entry' }) balance: number;
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
  account: { balancePaise: number; entries: AccountEntryRow[]; total: number },
  page: { page: number; limit: number },
): AccountResponse {
  return {
    success: true,
    balance: toRupees(account.balancePaise),
    entries: account.entries.map(toEntryDto),
    pagination: { page: page.page, limit: page.limit, total: account.total },
  };
}

export function toStatementResponse(s: Statement): StatementResponse {
  return {
    success: true,
    member: { _id: s.userId, fullName: s.fullName },
    from: s.from,
    to: s.to,
    opening: toRupees(s.openingPaise),
    entries: s.lines.map(({ entry, balancePaise }) => ({
      ...toEntryDto(entry),
      balance: toRupees(balancePaise),
    })),
    closing: toRupees(s.closingPaise),
    totalDebit: toRupees(s.totalDebitPaise),
    totalCredit: toRupees(s.totalCreditPaise),
  };
}
