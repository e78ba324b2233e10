import { Body, Controller, Get, Headers, Param, Post, Query, UseInterceptors } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiExtraModels,
  ApiTags,
} from '@nestjs/swagger';
import {
  type CurrentMember,
  CurrentUser,
  Allow,
  OwnRecordsInAnyMess,
} from '../../common/auth/auth.decorators';
import { ApiAuth, ApiRoleAuth } from '../../common/http/api-docs';
import { FileResponse, FileResponseInterceptor } from '../../common/http/file-response';
import { IdPipe } from '../../common/http/id.pipe';
import { ApiIdempotencyKey, idempotencyScope } from '../../common/http/idempotency-key';
import { AccountErrors } from './accounts.errors';
import { AccountsQueries } from './accounts.queries';
import {
  AccountsQuery,
  EntriesQuery,
  RecordNoteDto,
  RecordPaymentDto,
  ReverseEntryDto,
  StatementQuery,
  toNoteInput,
  toPaymentInput,
} from './dto/accounts.requests';
import {
  AccountResponse,
  AccountsResponse,
  EntryResponse,
  StatementResponse,
  toAccountResponse,
  toAccountsResponse,
  toEntryResponse,
  toStatementResponse,
} from './dto/accounts.response';
import { LedgerService } from './ledger.service';
import { StatementExportService, type StatementFormat } from './statement-export.service';

const NOT_FOUND_MEMBER = [404, AccountErrors.memberNotFound] as const;

@ApiTags('Accounts')
@Controller('accounts')
export class AccountsController {
  constructor(
    private readonly queries: AccountsQueries,
    private readonly ledger: LedgerService,
    private readonly exports: StatementExportService,
  ) {}

  @Get()
  @Allow('accounts.manage')
  @ApiOperation({
    summary: 'The dues list: every member with an account, balance and last payment, largest due first',
    description:
      'Treasurer or admin. Lists every approved member and anyone else with entries. Balance = Σ debits − Σ ' +
      'credits in rupees (> 0 due, < 0 credit). `totals` cover every matching account, not just the page.',
  })
  @ApiOkResponse({ type: AccountsResponse })
  @ApiRoleAuth(400)
  async listAccounts(@Query() query: AccountsQuery): Promise<AccountsResponse> {
    return toAccountsResponse(await this.queries.accounts(query.status, query.page, query.limit), query);
  }

  @Get('me')
  @OwnRecordsInAnyMess()
  @ApiOperation({ summary: "The caller's own account: balance and entries, newest first (any member)" })
  @ApiOkResponse({ type: AccountResponse })
  @ApiAuth(400)
  async getMyAccount(
    @CurrentUser() member: CurrentMember,
    @Query() query: EntriesQuery,
  ): Promise<AccountResponse> {
    return toAccountResponse(await this.queries.account(member, member.id, query.page, query.limit), query);
  }

  @Get(':userId')
  @OwnRecordsInAnyMess()
  @ApiParam({ name: 'userId', format: 'uuid' })
  @ApiOperation({
    summary: "A member's account: balance and entries, newest first",
    description: 'Treasurer, admin, or that member (another member gets 403).',
  })
  @ApiOkResponse({ type: AccountResponse })
  @ApiAuth(400, [403, AccountErrors.notYours], NOT_FOUND_MEMBER)
  async getAccount(
    @CurrentUser() member: CurrentMember,
    @Param('userId', IdPipe) userId: string,
    @Query() query: EntriesQuery,
  ): Promise<AccountResponse> {
    return toAccountResponse(await this.queries.account(member, userId, query.page, query.limit), query);
  }

  @Get(':userId/statement')
  @OwnRecordsInAnyMess()
  @UseInterceptors(FileResponseInterceptor)
  @ApiParam({ name: 'userId', format: 'uuid' })
  @ApiOperation({
    summary:
      'A statement of account for a period: opening balance, every entry with the balance after it, closing',
    description:
      'Treasurer, admin, or that member. `from`..`to` are months, inclusive (default: this month); `opening` is ' +
      'the balance of the entries dated before `from`. Entries by date, then order of recording. ' +
      '`Accept: text/csv` gives a spreadsheet-ready CSV (UTF-8 with BOM, plain rupee numbers), ' +
      '`Accept: application/pdf` a printable A4 PDF with the mess name and contact and rupees written the Indian ' +
      'way (₹1,23,456.78); both download as `statement-<userId>-<from>-<to>.<ext>`.',
  })
  // No `type` and no @ApiProduces: either would describe every media type as the JSON StatementResponse (a client
  // would then parse a PDF as JSON). Each media type's schema is given here instead.
  @ApiExtraModels(StatementResponse)
  @ApiOkResponse({
    description:
      'The statement as JSON, or as a download: `text/csv` a string, `application/pdf` binary (read the body as a ' +
      "blob, array buffer or text, e.g. the TypeScript client's `parseAs: 'blob'`)",
    content: {
      'application/json': { schema: { $ref: '#/components/schemas/StatementResponse' } },
      'text/csv': {
        schema: {
          type: 'string',
          example:
            'date,entry_id,kind,particulars,month,debit_inr,credit_inr,balance_inr,quantity,unit_price_inr,item_amount_inr,member,college_id',
        },
      },
      'application/pdf': { schema: { type: 'string', format: 'binary' } },
    },
  })
  @ApiAuth(400, [403, AccountErrors.notYours], NOT_FOUND_MEMBER)
  async getStatement(
    @CurrentUser() member: CurrentMember,
    @Param('userId', IdPipe) userId: string,
    @Query() query: StatementQuery,
    @Headers('accept') accept: string | undefined,
  ): Promise<StatementResponse | FileResponse> {
    const statement = await this.exports.issue(
      await this.queries.statement(member, userId, query.from, query.to),
    );
    const format = statementFormat(accept);
    return format ? this.exports.file(statement, format) : toStatementResponse(statement);
  }

  @Post(':userId/payments')
  @Allow('accounts.manage')
  @ApiParam({ name: 'userId', format: 'uuid' })
  @ApiIdempotencyKey('payment')
  @ApiOperation({
    summary: "Record a payment received from a member (treasurer or admin): a credit on the member's account",
    description:
      'Any method (cash, upi, bank, card, other) and an optional reference. The date is not in the future ' +
      '(mess time zone). The member is sent a PAYMENT_RECEIVED receipt.',
  })
  @ApiCreatedResponse({ type: EntryResponse })
  @ApiRoleAuth(400, NOT_FOUND_MEMBER, [422, AccountErrors.keyReused])
  async recordPayment(
    @CurrentUser() member: CurrentMember,
    @Param('userId', IdPipe) userId: string,
    @Body() body: RecordPaymentDto,
    @Headers('idempotency-key') key: string | undefined,
  ): Promise<EntryResponse> {
    const scope = idempotencyScope(key, {
      callerId: member.id,
      route: `POST /accounts/${userId}/payments`,
      body,
    });
    return toEntryResponse(await this.ledger.recordPayment(member.id, userId, toPaymentInput(body), scope));
  }

  @Post(':userId/adjustments')
  @Allow('accounts.manage')
  @ApiParam({ name: 'userId', format: 'uuid' })
  @ApiOperation({
    summary: 'Record an adjustment (treasurer or admin): a debit or credit note with a required note',
    description: 'Dated today (mess time zone). debit raises what the member owes, credit lowers it.',
  })
  @ApiCreatedResponse({ type: EntryResponse })
  @ApiRoleAuth(400, NOT_FOUND_MEMBER)
  async recordAdjustment(
    @CurrentUser() member: CurrentMember,
    @Param('userId', IdPipe) userId: string,
    @Body() body: RecordNoteDto,
  ): Promise<EntryResponse> {
    return toEntryResponse(await this.ledger.recordAdjustment(member.id, userId, toNoteInput(body)));
  }

  @Post(':userId/opening')
  @Allow('accounts.manage')
  @ApiParam({ name: 'userId', format: 'uuid' })
  @ApiOperation({
    summary: "Enter a member's opening balance (treasurer or admin), once: for a mess that moves in mid-year",
    description:
      'debit: the member owed this much; credit: the member had paid this much in advance. Dated today.',
  })
  @ApiCreatedResponse({ type: EntryResponse })
  @ApiRoleAuth(400, NOT_FOUND_MEMBER, [409, AccountErrors.openingExists])
  async recordOpeningBalance(
    @CurrentUser() member: CurrentMember,
    @Param('userId', IdPipe) userId: string,
    @Body() body: RecordNoteDto,
  ): Promise<EntryResponse> {
    return toEntryResponse(await this.ledger.recordOpening(member.id, userId, toNoteInput(body)));
  }

  @Post('entries/:id/reverse')
  @Allow('accounts.manage')
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({
    summary:
      'Reverse a payment, an adjustment or an opening (treasurer or admin) with an entry the other way',
    description:
      'The reversal has the same amount in the other direction, is dated today and names the entry it undoes. ' +
      "409 when the entry is already reversed, is itself a reversal, or is a month's charge (reopen the month).",
  })
  @ApiCreatedResponse({ type: EntryResponse })
  @ApiRoleAuth(
    400,
    [404, AccountErrors.entryNotFound],
    [409, AccountErrors.alreadyReversed, AccountErrors.reversalOfReversal, AccountErrors.chargeReversal],
  )
  async reverseEntry(
    @CurrentUser() member: CurrentMember,
    @Param('id', IdPipe) id: string,
    @Body() body: ReverseEntryDto,
  ): Promise<EntryResponse> {
    return toEntryResponse(await this.ledger.reverse(member.id, id, body.note));
  }
}

/** The download the Accept header asks for, if any (CSV first); otherwise the statement is JSON. */
function statementFormat(accept: string | undefined): StatementFormat | undefined {
  const wants = (type: string) => (accept ?? '').toLowerCase().includes(type);
  if (wants('text/csv')) return 'csv';
  if (wants('application/pdf')) return 'pdf';
  return undefined;
}
