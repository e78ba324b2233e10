import { Controller, Get, Header, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { type CurrentMember, CurrentUser, Roles } from '../../common/auth/auth.decorators';
import { badRequest } from '../../common/errors/api-error';
import { ApiAuth, ApiRoleAuth } from '../../common/http/api-docs';
import { isMonth } from '../../common/time/dates';
import { AnalyticsService } from './analytics.service';
import {
  AttendanceAnalyticsResponse,
  BillResponse,
  DayQuery,
  ExpenseAnalyticsQuery,
  ExpenseAnalyticsResponse,
  HeadcountResponse,
  HealthScoreResponse,
  MonthQuery,
  MonthStatusResponse,
  MyShareResponse,
  PeriodQuery,
  SharesQuery,
} from './dto/analytics.dto';

const monthParam = (month: string): string => {
  if (!isMonth(month))
    throw badRequest('Validation failed', [
      { field: 'month', message: 'month must be a month written YYYY-MM' },
    ]);
  return month;
};

@ApiTags('Analytics')
@Controller('analytics')
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @Get('expenses')
  @Roles('manager', 'treasurer')
  @ApiOperation({
    summary: 'Spending of a month or a year: total, monthly average, per category, month-by-month trend',
    description: 'Manager, treasurer or admin. `month` wins over `year`; neither means this year.',
  })
  @ApiOkResponse({ type: ExpenseAnalyticsResponse })
  @ApiRoleAuth(400)
  expenses(@Query() query: ExpenseAnalyticsQuery): Promise<ExpenseAnalyticsResponse> {
    return this.analytics.expenseAnalytics(query);
  }

  @Get('attendance')
  @Roles('manager', 'treasurer')
  @ApiOperation({
    summary: 'Attendance of a month (default this month) or of startDate..endDate',
    description:
      'totalMembers = approved members; a served slot is a (date, meal type) with at least one member present; ' +
      'averageAttendance = present marks / served slots; attendanceRate = present marks / (totalMembers × served slots); ' +
      'byMealType the same rate per meal type. A rating, an approval, a rejection or a role change shows in the ' +
      'next answer (the cached one is dropped).',
  })
  @ApiOkResponse({ type: AttendanceAnalyticsResponse })
  @ApiRoleAuth(400)
  attendance(@Query() query: PeriodQuery): Promise<AttendanceAnalyticsResponse> {
    return this.analytics.attendanceAnalytics(query);
  }

  @Get('health')
  @Roles('manager', 'treasurer')
  @ApiOperation({
    summary: 'Mess health score of a month (default this month), each part 0..100',
    description:
      'mealQuality = (average rating − 1)/4 × 100 (50 without ratings); attendanceRate = present / (approved members × ' +
      "served slots) × 100; fairShareIndex = Jain's index of meals per active member × 100; overallScore = " +
      '0.4 mealQuality + 0.4 attendanceRate + 0.2 fairShareIndex. A closed month is scored from the figures ' +
      'stored when it was closed, which match its frozen bill.',
  })
  @ApiOkResponse({ type: HealthScoreResponse })
  @ApiRoleAuth(400)
  health(@Query() query: MonthQuery): Promise<HealthScoreResponse> {
    return this.analytics.health(query.month);
  }

  @Get('shares')
  @Roles('manager', 'treasurer')
  @ApiOperation({
    summary: "The month's bill: every active member's meals and share",
    description:
      'method=spec (default) is the contract literally: (total / active members) × (member meals / all meals); its ' +
      'shares add up to total / active members, the rest is `unallocated`. method=proportional: total × member meals ' +
      '/ all meals, which recovers the whole total. Shares are rounded to the paisa with the leftover paise assigned ' +
      'to the largest remainders, so allocated + unallocated = totalExpenses exactly.',
  })
  @ApiOkResponse({ type: BillResponse })
  @ApiRoleAuth(400)
  @Header('content-type', 'application/json; charset=utf-8')
  shares(@Query() query: SharesQuery): Promise<string> {
    return this.analytics.billJson(this.analytics.resolveMonth(query.month), query.method);
  }

  @Get('shares/me')
  @ApiOperation({ summary: "The caller's own line of the month's bill (any member)" })
  @ApiOkResponse({ type: MyShareResponse })
  @ApiAuth(400)
  myShare(@CurrentUser() member: CurrentMember, @Query() query: SharesQuery): Promise<MyShareResponse> {
    return this.analytics.myShare(member.id, this.analytics.resolveMonth(query.month), query.method);
  }

  @Get('shares.csv')
  @Roles('manager', 'treasurer')
  @Header('content-type', 'text/csv; charset=utf-8')
  @ApiOperation({ summary: 'The bill as CSV (UTF-8 with BOM, one row per member), for spreadsheets' })
  // Only the success is CSV: its errors are JSON like every other route's, so no @ApiProduces here.
  @ApiOkResponse({
    content: {
      'text/csv': {
        schema: { type: 'string', example: 'month,member_id,full_name,meals,share_inr,method,closed' },
      },
    },
  })
  @ApiRoleAuth(400)
  async sharesCsv(@Query() query: SharesQuery): Promise<string> {
    return this.analytics.billCsv(this.analytics.resolveMonth(query.month), query.method);
  }

  @Get('months/:month')
  @Roles('manager', 'treasurer')
  @ApiParam({ name: 'month', example: '2025-03' })
  @ApiOperation({ summary: 'Whether a month is closed, and every close and reopen with who and when' })
  @ApiOkResponse({ type: MonthStatusResponse })
  @ApiRoleAuth(400)
  status(@Param('month') month: string): Promise<MonthStatusResponse> {
    return this.analytics.monthStatus(monthParam(month));
  }

  @Post('months/:month/close')
  @HttpCode(200)
  @Roles('treasurer')
  @ApiParam({ name: 'month', example: '2025-03' })
  @ApiOperation({
    summary:
      'Close a month (treasurer or admin): its bill is frozen, and writes to its expenses or attendance get 409',
    description:
      'One transaction: writes to expenses and attendance wait while it runs, so the frozen bill holds every write ' +
      "that was answered before it and none after (those get 409). The month's attendance and health figures are " +
      'stored from the same reads, so they agree with the frozen bill. 409 when the month is already closed; 400 ' +
      'for a month that has not begun in the mess time zone.',
  })
  @ApiOkResponse({ type: BillResponse })
  @ApiRoleAuth(400, [409, 'Month 2025-03 is already closed'])
  async close(@CurrentUser() member: CurrentMember, @Param('month') month: string): Promise<BillResponse> {
    return { success: true, ...(await this.analytics.close(monthParam(month), member.id)) };
  }

  @Post('months/:month/reopen')
  @HttpCode(200)
  @Roles('admin')
  @ApiParam({ name: 'month', example: '2025-03' })
  @ApiOperation({ summary: 'Reopen a closed month (admin); recorded with who and when' })
  @ApiOkResponse({ type: MonthStatusResponse })
  @ApiRoleAuth(400, [409, 'Month 2025-03 is not closed'])
  reopen(@CurrentUser() member: CurrentMember, @Param('month') month: string): Promise<MonthStatusResponse> {
    return this.analytics.reopen(monthParam(month), member.id);
  }

  @Get('headcount')
  @Roles('manager', 'treasurer')
  @ApiOperation({
    summary: 'Expected diners per meal of a day (default today) from the marks so far, for the kitchen',
  })
  @ApiOkResponse({ type: HeadcountResponse })
  @ApiRoleAuth(400)
  headcount(@Query() query: DayQuery): Promise<HeadcountResponse> {
    return this.analytics.headcount(query.date);
  }
}
