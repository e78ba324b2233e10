import { Body, Controller, Get, Headers, HttpCode, Param, Post, Put, Query, Req } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import {
  Allow,
  CurrentUser,
  OwnRecordsInAnyMess,
  Public,
  type CurrentMember,
} from '../../common/auth/auth.decorators';
import { ApiError } from '../../common/errors/api-error';
import { ApiAuth, ApiErrors, ApiRoleAuth } from '../../common/http/api-docs';
import { IdPipe } from '../../common/http/id.pipe';
import { toPaise, toRupees } from '../../common/money/money';
import { toEntryDto } from './dto/accounts.response';
import {
  AcceptClaimResponse,
  ClaimResponse,
  ClaimsQuery,
  ClaimsResponse,
  CreateClaimDto,
  GatewayOrderDto,
  GatewayOrderResponse,
  RejectClaimDto,
  StatementImportResponse,
  toClaimDto,
  toOrderResponse,
  toStatementImportResponse,
  UpiQuery,
  UpiResponse,
  WebhookResponse,
} from './dto/payments.dto';
import { GATEWAY_NOT_CONFIGURED, GATEWAY_UNAVAILABLE } from './payment-gateway.client';
import { PaymentErrors } from './payments.errors';
import { BankStatementService } from './bank-statement.service';
import { GatewayPaymentsService } from './gateway-payments.service';
import { PaymentClaimsService } from './payment-claims.service';
import { STATEMENT_MAX_ROWS, STATEMENT_TOO_LONG, STATEMENT_UNREADABLE } from './statement-csv';
import { XLSX_BODY_LIMIT_BYTES } from '../../common/http/request-parsing';
import { STATEMENT_NOT_XLSX, XLSX_CONTENT_TYPE } from './statement-xlsx';

const CLAIM_NOT_FOUND = [404, PaymentErrors.claimNotFound] as const;
const STATEMENT_NOT_A_FILE = `Send the statement as text/csv or ${XLSX_CONTENT_TYPE}`;

/** Paying the mess (extension 2.2): UPI links, claims of transfers, the bank statement, gateway orders. */
@ApiTags('Payments')
@Controller('accounts')
export class PaymentsController {
  constructor(
    private readonly claims: PaymentClaimsService,
    private readonly statements: BankStatementService,
    private readonly gateway: GatewayPaymentsService,
  ) {}

  @Get('me/upi')
  // A former member pays what they owe the mess they left (`mess`): its UPI id, their balance there.
  @OwnRecordsInAnyMess()
  @ApiOperation({
    summary: 'A UPI link and QR code for what the caller owes (any member)',
    description:
      "`upi://pay?pa=&pn=&am=&cu=INR&tn=` per NPCI's UPI linking specification, each value percent-encoded " +
      "(RFC 3986), `am` with two decimals, `tn` naming the mess and the member. A phone's UPI app opens it filled " +
      'in; the member then reports the transfer as a claim. `amount` defaults to the balance due. `mess` may name ' +
      'a mess the member belonged to: its UPI id, for what they owe there.',
  })
  @ApiOkResponse({ type: UpiResponse })
  @ApiAuth(400, [409, PaymentErrors.upiNotSetUp, PaymentErrors.nothingDue])
  async upi(@CurrentUser() member: CurrentMember, @Query() query: UpiQuery): Promise<UpiResponse> {
    const paise = query.amount === undefined ? undefined : toPaise(query.amount);
    const { amount, upiLink, qrSvg } = await this.claims.upi(member, paise);
    return { success: true, amount, upiLink, qrSvg };
  }

  @Post('me/payment-claims')
  // Their own claim, in a mess they belonged to as in their own: that mess's treasurer decides it.
  @OwnRecordsInAnyMess()
  @ApiOperation({
    summary: 'Report a bank (UPI) transfer to the mess by its 12-digit UTR (any member)',
    description:
      'The treasurer accepts it (a payment is recorded, a receipt sent) or rejects it; a bank statement naming the ' +
      'UTR with the same amount accepts it too. 409 naming `utr` when a pending or accepted claim or a recorded ' +
      'payment holds the UTR; a rejected claim frees it. `mess` may name a mess the member belonged to: the claim ' +
      "is that mess's, for its treasurer to decide.",
  })
  @ApiCreatedResponse({ type: ClaimResponse })
  @ApiAuth(400, [409, PaymentErrors.utrTaken])
  async createClaim(
    @CurrentUser() member: CurrentMember,
    @Body() body: CreateClaimDto,
  ): Promise<ClaimResponse> {
    const claim = await this.claims.createClaim(member, {
      amountPaise: toPaise(body.amount)!,
      date: body.date,
      utr: body.utr,
      note: body.note,
    });
    return { success: true, claim: toClaimDto(claim) };
  }

  @Get('payment-claims')
  @ApiOperation({
    summary: 'Payment claims, newest first',
    description: 'Treasurer or admin: every claim (filter by `status`, `userId`). Anyone else: their own.',
  })
  @ApiOkResponse({ type: ClaimsResponse })
  @ApiAuth(400)
  async listClaims(
    @CurrentUser() member: CurrentMember,
    @Query() query: ClaimsQuery,
  ): Promise<ClaimsResponse> {
    const { rows, total } = await this.claims.claims(member, query);
    return {
      success: true,
      claims: rows.map(toClaimDto),
      pagination: { page: query.page, limit: query.limit, total },
    };
  }

  @Put('payment-claims/:id/accept')
  @Allow('accounts.manage')
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({
    summary: 'Accept a claim (treasurer or admin): records the payment (upi, the UTR as reference) once',
    description:
      "The claim's date and amount; a PAYMENT_RECEIVED receipt is sent. Accepting again (or at once) answers the " +
      'same entry and records nothing.',
  })
  @ApiOkResponse({ type: AcceptClaimResponse })
  @ApiRoleAuth(400, CLAIM_NOT_FOUND, [409, PaymentErrors.rejectedClaim])
  async accept(
    @CurrentUser() member: CurrentMember,
    @Param('id', IdPipe) id: string,
  ): Promise<AcceptClaimResponse> {
    const result = await this.claims.accept(member.id, id);
    return {
      success: true,
      claim: toClaimDto(result.claim),
      entry: toEntryDto(result.entry),
      balance: toRupees(result.balancePaise),
    };
  }

  @Put('payment-claims/:id/reject')
  @Allow('accounts.manage')
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({ summary: 'Reject a claim with a reason (treasurer or admin)' })
  @ApiOkResponse({ type: ClaimResponse })
  @ApiRoleAuth(400, CLAIM_NOT_FOUND, [409, PaymentErrors.acceptedClaim])
  async reject(
    @CurrentUser() member: CurrentMember,
    @Param('id', IdPipe) id: string,
    @Body() body: RejectClaimDto,
  ): Promise<ClaimResponse> {
    return { success: true, claim: toClaimDto(await this.claims.reject(member.id, id, body.reason)) };
  }

  @Post('bank-statement')
  @HttpCode(200)
  @Allow('accounts.manage')
  @ApiConsumes('text/csv', XLSX_CONTENT_TYPE)
  @ApiBody({
    description:
      "The mess bank account's statement as the bank exports it: CSV (`text/csv`: UTF-8, a BOM allowed, CRLF or LF, " +
      '`,` separated, quoted fields) or an Excel workbook (`.xlsx`, its first sheet; at most ' +
      `${XLSX_BODY_LIMIT_BYTES / 1024 / 1024} MiB). Up to 30 lines before the header (the first row naming a date ` +
      'column and an amount or credit column) and any footer after the last transaction. Columns, matched ignoring ' +
      'case, spaces, a currency suffix (`(INR)`, `(₹)`, `(Rs.)`, `in INR`) and a trailing dot: the date from `date`, `txn date`, `transaction date`, `tran date` or ' +
      '`value date` (a transaction date preferred); the amount from `credit`, `deposit`, `deposit amt.`, ' +
      '`deposit amount`, `cr amount`, or `amount` / `transaction amount(inr)` with a `cr/dr` or `type` column; the ' +
      'UTR from `utr`, `reference`, `ref no`, `ref no.`, `ref no./cheque no.`, `chq./ref.no.`, `cheque/ref no`, or ' +
      'else the 12-digit reference in the narration (`description`, `narration`, `particulars`, `remarks`, ' +
      '`transaction remarks`); a reference zero-padded past 12 digits is read as its last 12. Only credits count: ' +
      'debit rows and rows without a credit are `skipped`. Dates YYYY-MM-DD, DD/MM/YYYY, DD-MM-YYYY, DD/MM/YY, ' +
      `DD Mon YYYY, DD-Mon-YY(YY); amounts in rupees (thousands separators allowed); at most ${STATEMENT_MAX_ROWS} ` +
      'transaction rows.',
    schema: {
      type: 'string',
      example:
        'Txn Date,Value Date,Description,Ref No./Cheque No.,Debit,Credit,Balance\n' +
        '14 Mar 2025,14 Mar 2025,UPI/CR/412233445566/ASHA VERMA/SBIN/asha@okaxis/Mess,,,"3,250.50","1,03,250.50"\n',
    },
  })
  @ApiOperation({
    summary: 'Import the bank statement (treasurer or admin): accepts each pending claim a row matches',
    description:
      'A credit whose UTR is a pending claim of the same amount accepts it (`matched`, each listed in ' +
      "`matchedLines` with its claim and member); a UTR already a payment's reference is `alreadyRecorded`; debits " +
      'and rows without a credit are `skipped`; the rest are `unmatched` with a reason (`no claim`, `amount ' +
      'differs` with the `claimedAmount`, `bad row` naming its `field`). `line` is the line of the file (the row ' +
      'of a spreadsheet). One transaction; importing the same statement twice records nothing the second time.',
  })
  @ApiOkResponse({ type: StatementImportResponse })
  @ApiRoleAuth(
    [400, STATEMENT_UNREADABLE, STATEMENT_NOT_XLSX, 'The statement has no date column'],
    [413, STATEMENT_TOO_LONG],
    [415, STATEMENT_NOT_A_FILE],
  )
  async importStatement(
    @CurrentUser() member: CurrentMember,
    @Body() file: string | Buffer,
  ): Promise<StatementImportResponse> {
    if (typeof file !== 'string' && !Buffer.isBuffer(file)) throw new ApiError(415, STATEMENT_NOT_A_FILE);
    return toStatementImportResponse(await this.statements.importStatement(member.id, file));
  }

  @Post('me/gateway-orders')
  @ApiOperation({
    summary: "Create a payment gateway order for the caller (any member): for the gateway's hosted checkout",
    description:
      'Bound to the member and the mess; the payment is recorded when the gateway confirms it by webhook. ' +
      '`amount` defaults to the balance due.',
  })
  @ApiCreatedResponse({ type: GatewayOrderResponse })
  @ApiAuth(400, [409, PaymentErrors.nothingDue], [503, GATEWAY_NOT_CONFIGURED, GATEWAY_UNAVAILABLE])
  async createOrder(
    @CurrentUser() member: CurrentMember,
    @Body() body: GatewayOrderDto,
  ): Promise<GatewayOrderResponse> {
    const { order, keyId } = await this.gateway.createOrder(
      member,
      body.amount === undefined ? undefined : toPaise(body.amount),
    );
    return toOrderResponse(order, keyId);
  }
}

/** The gateway's webhook: public, verified by its signature over the raw body. */
@ApiTags('Payments')
@Controller('payments')
export class PaymentGatewayWebhookController {
  constructor(private readonly gateway: GatewayPaymentsService) {}

  @Public()
  @Post('gateway/webhook')
  @HttpCode(200)
  @ApiHeader({ name: 'X-Razorpay-Signature', required: true, description: 'hex HMAC-SHA256 of the raw body' })
  @ApiBody({
    description: "The gateway's event, e.g. `payment.captured` with `payload.payment.entity`",
    schema: { type: 'object', additionalProperties: true },
  })
  @ApiOperation({
    summary: "The payment gateway's events (public, signed)",
    description:
      "`payment.captured` for one of our orders records one payment to the order's member in the order's mess " +
      '(method upi, card, bank or other; reference the payment id; dated the capture day). The event is kept ' +
      'before the 200 and its payment recorded a moment later. The same payment again records nothing (200); an ' +
      'order not ours records nothing (200, logged); a bad signature is 400 and keeps nothing.',
  })
  @ApiOkResponse({ type: WebhookResponse })
  @ApiErrors([400, PaymentErrors.badSignature, PaymentErrors.badEvent])
  async webhook(
    @Req() request: { rawBody?: Buffer },
    @Body() _event: Record<string, unknown>,
    @Headers('x-razorpay-signature') signature: string | undefined,
  ): Promise<WebhookResponse> {
    await this.gateway.webhook(request.rawBody ?? Buffer.alloc(0), signature);
    return { success: true };
  }
}
