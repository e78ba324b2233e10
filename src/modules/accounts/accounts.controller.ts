import { can } from '../../common/auth/permissions';
import { Body, Controller, Get, Headers, Param, Post, Query, UseInterceptors } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import { createHash } from 'node:crypto';
import { type CurrentMember, CurrentUser, Allow } from '../../common/auth/auth.decorators';
import { badRequest, forbidden } from '../../common/errors/api-error';
import { ApiAuth, ApiRoleAuth } from '../../common/http/api-docs';
import { FileResponse, FileResponseInterceptor } from '../../common/http/file-response';
import { IdPipe } from '../../common/http/id.pipe';
import { toPaise, toRupees } from '../../common/money/money';
import { monthOf } from '../../common/time/dates';
import { MessConfigService } from '../mess-config';
import { AccountErrors } from './accounts.errors';
import { AccountsService, EntryResult, IdempotencyScope, Statement } from './accounts.service';
import {
  AccountResponse,
  AccountsQuery,
  AccountsResponse,
  EntriesQuery,
  EntryResponse,
  RecordNoteDto,
  RecordPaymentDto,
  ReverseEntryDto,
  StatementQuery,
  StatementResponse,
  toEntryDto,
} from './dto/accounts.dto';
import { statementCsv, statementPdf } from './statement-documents';

/** Visible ASCII, 1–255 characters: what the Idempotency-Key header may hold. */
const KEY_PATTERN = /^[\x21-\x7E]{1,255}$/;
const NOT_FOUND_MEMBER = [404, AccountErrors.memberNotFound] as const;

@ApiTags('Accounts')
@Controller('accounts')
export class AccountsController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly messConfig: MessConfigService,
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
  async list(@Query() query: AccountsQuery): Promise<AccountsResponse> {
    const { rows, total, duePaise, creditPaise } = await this.accounts.accounts(
      query.status,
      query.page,
      query.limit,
    );
    return {
      success: true,
      accounts: rows.map((r) => ({
        userId: { _id: r.userId, fullName: r.fullName },
        balance: toRupees(r.balancePaise),
        lastPaymentAt: r.lastPaymentAt,
      })),
      totals: { due: toRupees(duePaise), credit: toRupees(creditPaise) },
      pagination: { page: query.page, limit: query.limit, total },
    };
  }

  @Get('me')
  @ApiOperation({ summary: "The caller's own account: balance and entries, newest first (any member)" })
  @ApiOkResponse({ type: AccountResponse })
  @ApiAuth(400)
  me(@CurrentUser() member: CurrentMember, @Query() query: EntriesQuery): Promise<AccountResponse> {
    return this.account(member.id, query);
  }

  @Get(':userId')
  @ApiParam({ name: 'userId', format: 'uuid' })
  @ApiOperation({
    summary: "A member's account: balance and entries, newest first",
    description: 'Treasurer, admin, or that member (another member gets 403).',
  })
  @ApiOkResponse({ type: AccountResponse })
  @ApiAuth(400, [403, AccountErrors.notYours], NOT_FOUND_MEMBER)
  async get(
    @CurrentUser() member: CurrentMember,
    @Param('userId', IdPipe) userId: string,
    @Query() query: EntriesQuery,
  ): Promise<AccountResponse> {
    assertMayRead(member, userId);
    return this.account(userId, query);
  }

  @Get(':userId/statement')
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
  @ApiProduces('application/json', 'text/csv', 'application/pdf')
  @ApiOkResponse({
    type: StatementResponse,
    content: {
      'application/json': { schema: { $ref: '#/components/schemas/StatementResponse' } },
      'text/csv': {
        schema: {
          type: 'string',
          example: 'date,entry_id,kind,particulars,month,debit_inr,credit_inr,balance_inr',
        },
      },
      'application/pdf': { schema: { type: 'string', format: 'binary' } },
    },
  })
  @ApiAuth(400, [403, AccountErrors.notYours], NOT_FOUND_MEMBER)
  async statement(
    @CurrentUser() member: CurrentMember,
    @Param('userId', IdPipe) userId: string,
    @Query() query: StatementQuery,
    @Headers('accept') accept: string | undefined,
  ): Promise<StatementResponse | FileResponse> {
    assertMayRead(member, userId);
    const to = query.to ?? monthOf(this.accounts.today());
    const from = query.from ?? to;
    const statement = await this.accounts.statement(userId, from, to);
    const fileName = `statement-${userId}-${from}-${to}`;
    const wants = (type: string) => (accept ?? '').toLowerCase().includes(type);
    if (wants('text/csv'))
      return new FileResponse('text/csv; charset=utf-8', `${fileName}.csv`, statementCsv(statement));
    if (wants('application/pdf')) {
      const config = await this.messConfig.read();
      const pdf = await statementPdf(
        statement,
        { messName: config.messName, email: config.email, phone: config.phone },
        this.accounts.today(),
      );
      return new FileResponse('application/pdf', `${fileName}.pdf`, pdf);
    }
    return toStatementResponse(statement);
  }

  @Post(':userId/payments')
  @Allow('accounts.manage')
  @ApiParam({ name: 'userId', format: 'uuid' })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'Any unique string (a UUID) per payment. A repeat with the same key by the same caller to the same path ' +
      'returns the first answer and records nothing more, also when the repeats arrive at once; the same key ' +
      'with a different body is 422. Only a successful answer is kept: after an error, the key may be used again.',
  })
  @ApiOperation({
    summary: "Record a payment received from a member (treasurer or admin): a credit on the member's account",
    description:
      'Any method (cash, upi, bank, card, other) and an optional reference. The date is not in the future ' +
      '(mess time zone). The member is sent a PAYMENT_RECEIVED receipt.',
  })
  @ApiCreatedResponse({ type: EntryResponse })
  @ApiRoleAuth(400, NOT_FOUND_MEMBER, [422, AccountErrors.keyReused])
  async payment(
    @CurrentUser() member: CurrentMember,
    @Param('userId', IdPipe) userId: string,
    @Body() body: RecordPaymentDto,
    @Headers('idempotency-key') key: string | undefined,
  ): Promise<EntryResponse> {
    let scope: IdempotencyScope | undefined;
    if (key !== undefined) {
      if (!KEY_PATTERN.test(key))
        throw badRequest('Validation failed', [
          { field: 'Idempotency-Key', message: AccountErrors.keyInvalid },
        ]);
      scope = {
        callerId: member.id,
        route: `POST /accounts/${userId}/payments`,
        key,
        fingerprint: fingerprint(body),
      };
    }
    return toEntryResponse(
      await this.accounts.recordPayment(
        member.id,
        userId,
        {
          amountPaise: toPaise(body.amount)!,
          date: body.date,
          method: body.method,
          reference: body.reference,
          note: body.note,
        },
        scope,
      ),
    );
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
  async adjustment(
    @CurrentUser() member: CurrentMember,
    @Param('userId', IdPipe) userId: string,
    @Body() body: RecordNoteDto,
  ): Promise<EntryResponse> {
    return toEntryResponse(
      await this.accounts.recordAdjustment(member.id, userId, {
        direction: body.direction,
        amountPaise: toPaise(body.amount)!,
        note: body.note,
      }),
    );
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
  async opening(
    @CurrentUser() member: CurrentMember,
    @Param('userId', IdPipe) userId: string,
    @Body() body: RecordNoteDto,
  ): Promise<EntryResponse> {
    return toEntryResponse(
      await this.accounts.recordOpening(member.id, userId, {
        direction: body.direction,
        amountPaise: toPaise(body.amount)!,
        note: body.note,
      }),
    );
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
  async reverse(
    @CurrentUser() member: CurrentMember,
    @Param('id', IdPipe) id: string,
    @Body() body: ReverseEntryDto,
  ): Promise<EntryResponse> {
    return toEntryResponse(await this.accounts.reverse(member.id, id, body.note));
  }

  private async account(userId: string, query: EntriesQuery): Promise<AccountResponse> {
    const { balancePaise, entries, total } = await this.accounts.account(userId, query.page, query.limit);
    return {
      success: true,
      balance: toRupees(balancePaise),
      entries: entries.map(toEntryDto),
      pagination: { page: query.page, limit: query.limit, total },
    };
  }
}

/** Treasurers and admins read every account; anyone else only their own. */
function assertMayRead(member: CurrentMember, userId: string): void {
  if (member.id !== userId && !can(member, 'accounts.manage'))
    throw forbidden(AccountErrors.notYours);
}

/** The body as validated, keys sorted: the same payment written another way has the same fingerprint. */
function fingerprint(body: RecordPaymentDto): string {
  const canonical = Object.fromEntries(
    Object.entries({ ...body })
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

const toEntryResponse = (result: EntryResult): EntryResponse => ({
  success: true,
  entry: toEntryDto(result.entry),
  balance: toRupees(result.balancePaise),
});

function toStatementResponse(s: Statement): StatementResponse {
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
