import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, Matches } from 'class-validator';
import { DateField, Optional, RupeesField, TextField } from '../../../common/http/fields';
import { PageQuery, PaginationDto } from '../../../common/http/paging';
import { toRupees } from '../../../common/money/money';
import { NOTE_MAX } from '../accounts.schema';
import type { ClaimWithName } from '../payments.repository';
import { CLAIM_STATUSES, REASON_MAX, type ClaimStatus, type GatewayOrderRow } from '../payments.schema';
import type { StatementResult, UnmatchedReason } from '../bank-statement.service';
import type { StatementField } from '../statement-table';
import { EntryDto } from './accounts.response';

// ---- requests ----

export class UpiQuery {
  // No example: "Try it out" leaves it empty, for the balance due.
  @RupeesField({ optional: true, example: undefined, description: 'Rupees to pay; default: the balance due' })
  @Type(() => Number)
  amount?: number;
}

export class CreateClaimDto {
  @RupeesField({ example: 3250.5 })
  amount: number;

  @DateField({ description: 'The day of the transfer; not in the future (mess time zone)' })
  date: string;

  @ApiProperty({ example: '412233445566', description: "The transfer's 12-digit UTR (UPI reference)" })
  @Matches(/^[0-9]{12}$/, { message: 'utr must be exactly 12 digits' })
  utr: string;

  @TextField(1, NOTE_MAX, { optional: true, multiline: true, example: 'November mess bill' })
  note?: string;
}

export class ClaimsQuery extends PageQuery(20, 100) {
  @ApiPropertyOptional({ enum: CLAIM_STATUSES })
  @IsIn(CLAIM_STATUSES, { message: `status must be one of ${CLAIM_STATUSES.join(', ')}` })
  @Optional()
  status?: ClaimStatus;

  @ApiPropertyOptional({ format: 'uuid', description: "One member's claims (treasurer, admin)" })
  @Matches(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, {
    message: 'userId must be an id',
  })
  @Optional()
  userId?: string;
}

export class RejectClaimDto {
  @TextField(1, REASON_MAX, { multiline: true, example: 'No such credit in the bank account' })
  reason: string;
}

export class GatewayOrderDto {
  @RupeesField({ optional: true, description: 'Rupees to pay; default: the balance due' })
  amount?: number;
}

// ---- responses ----

class MemberRefDto {
  @ApiProperty() _id: string;
  @ApiProperty() fullName: string;
}

export class UpiResponse {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ description: 'Rupees', example: 3250.5 }) amount: number;
  @ApiProperty({
    example:
      'upi://pay?pa=hostel7%40okbank&pn=Hostel%207%20Mess&am=3250.50&cu=INR&tn=Hostel%207%20Mess%20-%20Asha',
  })
  upiLink: string;
  @ApiProperty({ description: 'The link as an SVG QR code' }) qrSvg: string;
}

export class ClaimDto {
  @ApiProperty() _id: string;
  @ApiProperty({ type: MemberRefDto }) userId: MemberRefDto;
  @ApiProperty({ description: 'Rupees' }) amount: number;
  @ApiProperty({ format: 'date' }) date: string;
  @ApiProperty({ example: '412233445566' }) utr: string;
  @ApiProperty({ nullable: true, type: String }) note: string | null;
  @ApiProperty({ enum: CLAIM_STATUSES }) status: ClaimStatus;
  @ApiProperty({ nullable: true, type: String, description: 'The payment entry once accepted' })
  entryId: string | null;
  @ApiProperty({ nullable: true, type: String }) decidedBy: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) decidedAt: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'Why it was rejected' }) reason: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class ClaimResponse {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: ClaimDto }) claim: ClaimDto;
}

export class ClaimsResponse {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: [ClaimDto], description: 'Newest first' }) claims: ClaimDto[];
  @ApiProperty({ type: PaginationDto }) pagination: PaginationDto;
}

export class AcceptClaimResponse {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: ClaimDto }) claim: ClaimDto;
  @ApiProperty({ type: EntryDto }) entry: EntryDto;
  @ApiProperty({ description: "Rupees: the member's balance now" }) balance: number;
}

const REASONS: UnmatchedReason[] = ['no claim', 'amount differs', 'bad row'];

const FIELDS: StatementField[] = ['date', 'amount', 'utr'];
const LINE = "The file's line (a CSV's line counting the preamble, a spreadsheet's row number)";

class UnmatchedLineDto {
  @ApiProperty({ description: LINE }) line: number;
  @ApiProperty({ nullable: true, type: String }) utr: string | null;
  @ApiProperty({ nullable: true, type: Number, description: 'Rupees, when readable' }) amount: number | null;
  @ApiProperty({ enum: REASONS }) reason: UnmatchedReason;
  @ApiPropertyOptional({ description: "`amount differs`: the claim's amount (rupees)" })
  claimedAmount?: number;
  @ApiPropertyOptional({ enum: FIELDS, description: '`bad row`: the first field that does not read' })
  field?: StatementField;
}

class MatchedLineDto {
  @ApiProperty({ description: LINE }) line: number;
  @ApiProperty({ example: '633112345603' }) utr: string;
  @ApiProperty({ description: 'Rupees' }) amount: number;
  @ApiProperty({ description: 'The claim it accepted' }) claimId: string;
  @ApiProperty({ type: MemberRefDto }) member: MemberRefDto;
}

export class StatementImportResponse {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({
    description:
      'Transaction rows read: credits, skipped rows and bad rows (not the preamble, header or footer)',
  })
  rows: number;
  @ApiProperty({ description: 'Rows that accepted a pending claim (a payment recorded each)' })
  matched: number;
  @ApiProperty({ description: "Rows whose UTR is already a payment's reference" }) alreadyRecorded: number;
  @ApiProperty({ description: 'Debit rows and rows without a credit' }) skipped: number;
  @ApiProperty({ type: [MatchedLineDto], description: 'The rows that accepted a claim, in file order' })
  matchedLines: MatchedLineDto[];
  @ApiProperty({ type: [UnmatchedLineDto] }) unmatched: UnmatchedLineDto[];
}

class OrderDto {
  @ApiProperty() _id: string;
  @ApiProperty({ example: 'order_N5nJ3wS2a1b2c3' }) gatewayOrderId: string;
  @ApiProperty({ description: 'Rupees' }) amount: number;
  @ApiProperty({ example: 'INR' }) currency: string;
  @ApiProperty({ description: "The gateway's key id, for the client's checkout" }) keyId: string;
  @ApiProperty({ example: 'created' }) status: string;
}

export class GatewayOrderResponse {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: OrderDto }) order: OrderDto;
}

export class WebhookResponse {
  @ApiProperty({ example: true }) success: true;
}

export const toClaimDto = (c: ClaimWithName): ClaimDto => ({
  _id: c.id,
  userId: { _id: c.userId, fullName: c.fullName },
  amount: toRupees(c.amountPaise),
  date: c.date,
  utr: c.utr,
  note: c.note,
  status: c.status,
  entryId: c.entryId,
  decidedBy: c.decidedBy,
  decidedAt: c.decidedAt ? c.decidedAt.toISOString() : null,
  reason: c.reason,
  createdAt: c.createdAt.toISOString(),
});

export const toStatementImportResponse = (r: StatementResult): StatementImportResponse => ({
  success: true,
  rows: r.rows,
  matched: r.matched,
  alreadyRecorded: r.alreadyRecorded,
  skipped: r.skipped,
  matchedLines: r.matchedLines.map((m) => ({
    line: m.line,
    utr: m.utr,
    amount: toRupees(m.amountPaise),
    claimId: m.claimId,
    member: { _id: m.member.id, fullName: m.member.fullName },
  })),
  unmatched: r.unmatched.map((u) => ({
    line: u.line,
    utr: u.utr,
    amount: u.amountPaise === null ? null : toRupees(u.amountPaise),
    reason: u.reason,
    ...(u.claimedPaise !== undefined ? { claimedAmount: toRupees(u.claimedPaise) } : {}),
    ...(u.field ? { field: u.field } : {}),
  })),
});

export const toOrderResponse = (order: GatewayOrderRow, keyId: string): GatewayOrderResponse => ({
  success: true,
  order: {
    _id: order.id,
    gatewayOrderId: order.gatewayOrderId,
    amount: toRupees(order.amountPaise),
    currency: 'INR',
    keyId,
    status: 'created',
  },
});
