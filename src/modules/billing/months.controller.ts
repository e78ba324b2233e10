import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { type CurrentMember, CurrentUser, Allow } from '../../common/auth/auth.decorators';
import { badRequest } from '../../common/errors/api-error';
import { ApiRoleAuth } from '../../common/http/api-docs';
import { isMonth } from '../../common/time/dates';
import { toBillDto } from './bill-presenter';
import { BillingErrors } from './billing.errors';
import { BillResponse, MonthsQuery, MonthsResponse, MonthStatusResponse } from './dto/billing.dto';
import { MonthClosingService, MonthState, MonthStatus } from './month-closing.service';

const monthParam = (month: string): string => {
  if (!isMonth(month))
    throw badRequest('Validation failed', [
      { field: 'month', message: 'month must be a month written YYYY-MM' },
    ]);
  return month;
};

/**
 * The months billed, each one's state and history, and their close and reopen; under /analytics as the contract has
 * them.
 */
@ApiTags('Analytics')
@Controller('analytics')
export class MonthsController {
  constructor(private readonly closing: MonthClosingService) {}

  @Get('months')
  @Allow('bills.read')
  @ApiOperation({
    summary: 'The months the service has billed, newest first, open or closed, with who closed them and when',
    description:
      'A month is listed while it has an expense or an attendance mark, and once it has been closed (a reopened ' +
        'month stays); a month whose only records were deleted, or that was only read, is not. ' +
      '`closedAt` and `closedBy` are null while a month is open.',
  })
  @ApiOkResponse({ type: MonthsResponse })
  @ApiRoleAuth(400)
  async listMonths(@Query() query: MonthsQuery): Promise<MonthsResponse> {
    return toMonthsResponse(await this.closing.months(query.page, query.limit), query);
  }

  @Get('months/:month')
  @Allow('bills.read')
  @ApiParam({ name: 'month', example: '2025-03' })
  @ApiOperation({ summary: 'Whether a month is closed, and every close and reopen with who and when' })
  @ApiOkResponse({ type: MonthStatusResponse })
  @ApiRoleAuth(400)
  async getMonthStatus(@Param('month') month: string): Promise<MonthStatusResponse> {
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
  @ApiRoleAuth(
    [400, BillingErrors.notBegun],
    [409, BillingErrors.alreadyClosed('2025-03'), BillingErrors.notOver('2025-03', '2025-03-31', '21:30')],
  )
  async closeMonth(
    @CurrentUser() member: CurrentMember,
    @Param('month') month: string,
  ): Promise<BillResponse> {
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
  async reopenMonth(
    @CurrentUser() member: CurrentMember,
    @Param('month') month: string,
  ): Promise<MonthStatusResponse> {
    return toStatusResponse(await this.closing.reopen(monthParam(month), member.id));
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

function toMonthsResponse(
  page: { months: MonthState[]; total: number },
  query: { page: number; limit: number },
): MonthsResponse {
  return {
    success: true,
    months: page.months.map((m) => ({
      month: m.month,
      closed: m.closed,
      closedAt: m.closedAt?.toISOString() ?? null,
      closedBy: m.closedBy ? { _id: m.closedBy.id, fullName: m.closedBy.fullName } : null,
    })),
    pagination: { page: query.page, limit: query.limit, total: page.total },
  };
}
