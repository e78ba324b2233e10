import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { DateField, MonthField, Optional, RupeesField, TextField } from '../../../common/http/fields';
import { PageQuery, PaginationDto } from '../../../common/http/paging';
import { toRupees } from '../../../common/money/money';
import {
  DIRECTIONS,
  ENTRY_KINDS,
  NOTE_MAX,
  PAYMENT_METHODS,
  REFERENCE_MAX,
  type AccountEntryRow,
  type Direction,
  type EntryKind,
  type PaymentMethod,
} from '../accounts.schema';
import type { BalanceStatus } from '../accounts.repository';

export const BALANCE_STATUSES = ['due', 'credit', 'settled'] as const satisfies readonly BalanceStatus[];

// ---- requests ----

export class RecordPaymentDto {
  @RupeesField({ example: 3250.5 })
  amount: number;

  @DateField({ description: 'When the money was received; not in the future (mess time zone)' })
  date: string;

  @ApiProperty({ enum: PAYMENT_METHODS, example: 'upi' })
  @IsIn(PAYMENT_METHODS, { message: `method must be one of ${PAYMENT_METHODS.join(', ')}` })
  method: PaymentMethod;

  @TextField(1, REFERENCE_MAX, {
    optional: true,
    description: 'UPI transaction id, cheque or receipt number',
    example: 'UPI-412233445566',
  })
  reference?: string;

  @TextField(1, NOTE_MAX, { optional: true, multiline: true, example: 'November mess bill' })
  note?: string;
}

export class RecordNoteDto {
  @ApiProperty({
    enum: DIRECTIONS,
    example: 'credit',
    description: 'debit raises what the member owes; credit lowers it',
  })
  @IsIn(DIRECTIONS, { message: `direction must be one of ${DIRECTIONS.join(', ')}` })
  direction: Direction;

  @RupeesField({ example: 150 })
  amount: number;

  @TextField(1, NOTE_MAX, {
    multiline: true,
    description: 'Why (required)',
    example: 'Rebate: mess closed on Diwali',
  })
  note: string;
}

export class ReverseEntryDto {
  @TextField(1, NOTE_MAX, {
    multiline: true,
    description: 'Why (required)',
    example: 'Payment recorded twice',
  })
  note: string;
}

export class AccountsQuery extends PageQuery(20, 100) {
  @ApiPropertyOptional({ enum: BALANCE_STATUSES, description: 'due: balance > 0; credit: < 0; settled: 0' })
  @IsIn(BALANCE_STATUSES, { message: `status must be one of ${BALANCE_STATUSES.join(', ')}` })
  @Optional()
  status?: BalanceStatus;
}

export class EntriesQuery extends PageQuery(20, 100) {}

export class StatementQuery {
  @MonthField({ optional: true, description: 'First month, inclusive; default: the month of `to`' })
  from?: string;

  @MonthField({ optional: true, description: 'Last month, inclusive; default: this month (mess time zone)' })
  to?: string;
}

// ---- responses ----

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
