import { Controller, Get, Header, HttpCode, Param, Post, Query, UseInterceptors } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { type CurrentMember, CurrentUser, Allow } from '../../common/auth/auth.decorators';
import { badRequest } from '../../common/errors/api-error';
import { ApiAuth, ApiRoleAuth } from '../../common/http/api-docs';
import { FileResponse, FileResponseInterceptor } from '../../common/http/file-response';
import { isMonth } from '../../common/time/dates';
import { BillPresenter, toBillDto } from './bill-presenter';
import { BillingErrors } from './billing.errors';
import { BillingService } from './billing.service';
import {
  BillResponse,
  MonthsQuery,
  MonthsResponse,
  MonthStatusResponse,
  MyShareResponse,
  SharesQuery,
} from './dto/billing.dto';
import { MonthClosingService, MonthStatus } from './month-closing.service';

const monthParam = (month: string): string => {
  if (!isMonth(month))
    throw badRequest('Validation failed', [
      { field: 'month', message: 'month must be a month written YYYY-MM' },
    ]);
  return month;
};

const METHODS_DESCRIPTION =
  "Without `method`, the mess's `chargeMethod` (default proportional): what a close charges, so what a member " +
  'sees is what they are charged. method=spec is the contract literally: (total / active members) × (member ' +
  'meals / all meals); its shares add up to total / active members, the rest is `unallocated`. ' +
  'method=proportional: total × member meals / all meals, which recovers the whole total. Shares are rounded to ' +
  'the paisa with the leftover paise assigned to the largest remainders, so allocated + unallocated = ' +
  "totalExpenses exactly. Each line also gives the member's `extras` of the month and `total` = share + extras " +
  '(what a close charges); members with extras and no meals follow with share 0; `totalBilled` = allocated + ' +
  '`totalExtras`. Every present mark and every extra is billed, whoever dines now: a member who stops dining ' +
  'keeps the meals and extras of when they dined, and nobody can mark present (or record extras for) a member ' +
  'with `dines: false`, so the admin and the like are never on the bill.';

/** The bill and the month's close, under /analytics as the contract placed them. */
@ApiTags('Analytics')
@Controller('analytics')
export class BillingController {
  constructor(
    private readonly billing: BillingService,
    private readonly presenter: BillPresenter,
    private readonly closing: MonthClosingService,
  ) {}

  @Get('shares')
  @Allow('bills.read')
  @ApiOperation({
    summary: "The month's bill: every active member's meals and share",
    description: METHODS_DESCRIPTION,
  })
  @ApiOkResponse({ type: BillResponse })
  @ApiRoleAuth(400)
  @Header('content-type', 'application/json; charset=utf-8')
  async shares(@Query() query: SharesQuery): Promise<string> {
    return this.presenter.json(this.billing.resolveMonth(query.month), await this.method(query));
  }

  @Get('shares/me')
  @ApiOperation({
    summary: "The caller's own line of the month's bill (any member)",
    description: "Without `method`, the mess's `chargeMethod`: the amount a close charges the member.",
  })
  @ApiOkResponse({ type: MyShareResponse })
  @ApiAuth(400)
  async myShare(@CurrentUser() member: CurrentMember, @Query() query: SharesQuery): Promise<MyShareResponse> {
    return this.presenter.myShare(
      member.id,
      this.billing.resolveMonth(query.month),
      await this.method(query),
    );
  }

  @Get('shares.csv')
  @Allow('bills.read')
  @UseInterceptors(FileResponseInterceptor)
  @ApiOperation({
    summary: 'The bill as CSV (UTF-8 with BOM, one row per member), for spreadsheets',
    description:
      'Downloads as `mess-bill-<month>-<method>.csv` (Content-Disposition: attachment). ' +
      METHODS_DESCRIPTION,
  })
  // Only the success is CSV: its errors are JSON like every other route's, so no @ApiProduces here.
  @ApiOkResponse({
    headers: {
      'Content-Disposition': {
        description: 'attachment; filename="mess-bill-2025-03-proportional.csv"',
        schema: { type: 'string' },
      },
    },
    content: {
      'text/csv': {
        schema: { type: 'string', example: 'month,member_id,full_name,meals,share_inr,method,closed' },
      },
    },
  })
  @ApiRoleAuth(400)
  async sharesCsv(@Query() query: SharesQuery): Promise<FileResponse> {
    const month = this.billing.resolveMonth(query.month);
    const method = await this.method(query);
    return new FileResponse(
      'text/csv; charset=utf-8',
      `mess-bill-${month}-${method}.csv`,
      await this.presenter.csv(month, method),
    );
  }

  @Get('months')
  @Allow('bills.read')
  @ApiOperation({
    summary: 'The months the service has billed, newest first, open or closed, with who closed them and when',
    description:
      'A month appears once its bill has been computed (read or recalculated) or it has been closed. ' +
      '`closedAt` and `closedBy` are null while a month is open.',
  })
  @ApiOkResponse({ type: MonthsResponse })
  @ApiRoleAuth(400)
  async months(@Query() query: MonthsQuery): Promise<MonthsResponse> {
    const { months, total } = await this.closing.months(query.page, query.limit);
    return {
      success: true,
      months: months.map((m) => ({
        month: m.month,
        closed: m.closed,
        closedAt: m.closedAt?.toISOString() ?? null,
        closedBy: m.closedBy ? { _id: m.closedBy.id, fullName: m.closedBy.fullName } : null,
      })),
      pagination: { page: query.page, limit: query.limit, total },
    };
  }

  @Get('months/:month')
  @Allow('bills.read')
  @ApiParam({ name: 'month', example: '2025-03' })
  @ApiOperation({ summary: 'Whether a month is closed, and every close and reopen with who and when' })
  @ApiOkResponse({ type: MonthStatusResponse })
  @ApiRoleAuth(400)
  async status(@Param('month') month: string): Promise<MonthStatusResponse> {
    return toStatusResponse(await this.closing.status(monthParam(month)));
  }

  @Post('months/:month/close')
  @HttpCode(200)
  @Allow('months.close')
  @ApiParam({ name: 'month', example: '2025-03' })
  @ApiOperation({
    summary:
      "Close a month (treasurer or admin): its bill is frozen, each member's share is charged to their account, " +
      'and writes to its expenses or attendance get 409',
    description:
      'One transaction: writes to expenses and attendance wait while it runs, so the frozen bill holds every write ' +
      "that was answered before it and none after (those get 409). The month's attendance and health figures are " +
      'stored from the same reads, so they agree with the frozen bill. In the same transaction every billed ' +
      "member gets a `charge` entry on their account (GET /accounts/{userId}) of their share under the mess's " +
      '`chargeMethod`, dated the last day of the month; the answer is the bill under that method. 409 when the ' +
      'month is already closed; 400 for a month that has not begun in the mess time zone.',
  })
  @ApiOkResponse({ type: BillResponse })
  @ApiRoleAuth([400, BillingErrors.notBegun], [409, BillingErrors.alreadyClosed('2025-03')])
  async close(@CurrentUser() member: CurrentMember, @Param('month') month: string): Promise<BillResponse> {
    return { success: true, ...toBillDto(await this.closing.close(monthParam(month), member.id)) };
  }

  @Post('months/:month/reopen')
  @HttpCode(200)
  @Allow('months.reopen')
  @ApiParam({ name: 'month', example: '2025-03' })
  @ApiOperation({
    summary: 'Reopen a closed month (admin); recorded with who and when, and its charges are reversed',
    description:
      "In the same transaction each of the month's charges gets a `reversal` entry on the member's account, dated " +
      'the last day of the month; closing it again posts the new charges.',
  })
  @ApiOkResponse({ type: MonthStatusResponse })
  @ApiRoleAuth(400, [409, BillingErrors.notClosed('2025-03')])
  async reopen(
    @CurrentUser() member: CurrentMember,
    @Param('month') month: string,
  ): Promise<MonthStatusResponse> {
    return toStatusResponse(await this.closing.reopen(monthParam(month), member.id));
  }

  private async method(query: SharesQuery) {
    return query.method ?? (await this.billing.chargeMethod());
  }
}

function toStatusResponse(status: MonthStatus): MonthStatusResponse {
  return {
    success: true,
    month: status.month,
    closed: status.closed,
    history: status.history.map((e) => ({
      action: e.action,
      at: e.at.toISOString(),
      by: e.actorId,
      byName: e.actorName,
    })),
  };
}
