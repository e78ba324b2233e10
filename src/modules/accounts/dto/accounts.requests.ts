import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { DateField, MonthField, Optional, RupeesField, TextField } from '../../../common/http/fields';
import { PageQuery } from '../../../common/http/paging';
import { toPaise } from '../../../common/money/money';
import type { BalanceStatus } from '../accounts.repository';
import {
  DIRECTIONS,
  NOTE_MAX,
  PAYMENT_METHODS,
  REFERENCE_MAX,
  type Direction,
  type PaymentMethod,
} from '../accounts.schema';
import type { NoteInput, PaymentInput } from '../ledger.service';

export const BALANCE_STATUSES = ['due', 'credit', 'settled'] as const satisfies readonly BalanceStatus[];

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

export const toPaymentInput = (body: RecordPaymentDto): PaymentInput => ({
  amountPaise: toPaise(body.amount)!,
  date: body.date,
  method: body.method,
  reference: body.reference,
  note: body.note,
});

export const toNoteInput = (body: RecordNoteDto): NoteInput => ({
  direction: body.direction,
  amountPaise: toPaise(body.amount)!,
  note: body.note,
});
