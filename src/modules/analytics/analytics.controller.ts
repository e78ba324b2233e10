import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Allow } from '../../common/auth/auth.decorators';
import { ApiRoleAuth } from '../../common/http/api-docs';
import { AnalyticsService } from './analytics.service';
import { toUniversityViewResponse } from './university-view';
import { UniversityViewService } from './university-view.service';
import {
  AttendanceAnalyticsResponse,
  HeadcountQuery,
  ExpenseAnalyticsQuery,
  ExpenseAnalyticsResponse,
  HeadcountResponse,
  HealthScoreResponse,
  MonthQuery,
  PeriodQuery,
  UniversityViewResponse,
} from './dto/analytics.dto';

@ApiTags('Analytics')
@Controller('analytics')
export class AnalyticsController {
  constructor(
    private readonly analytics: AnalyticsService,
    private readonly university: UniversityViewService,
  ) {}

  @Get('expenses')
  @Allow('analytics.read')
  @ApiOperation({
    summary: 'Spending of a month or a year: total, monthly average, per category, month-by-month trend',
    description: 'Manager, treasurer or admin. `month` wins over `year`; neither means this year.',
  })
  @ApiOkResponse({ type: ExpenseAnalyticsResponse })
  @ApiRoleAuth(400)
  getExpenseAnalytics(@Query() query: ExpenseAnalyticsQuery): Promise<ExpenseAnalyticsResponse> {
    return this.analytics.expenseAnalytics(query);
  }

  @Get('attendance')
  @Allow('analytics.read')
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
  getAttendanceAnalytics(@Query() query: PeriodQuery): Promise<AttendanceAnalyticsResponse> {
    return this.analytics.attendanceAnalytics(query);
  }

  @Get('health')
  @Allow('analytics.read')
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
  getMessHealth(@Query() query: MonthQuery): Promise<HealthScoreResponse> {
    return this.analytics.health(query.month);
  }

  @Get('headcount')
  @Allow('analytics.read')
  @ApiOperation({
    summary: 'Expected diners per meal of a day (default today) from the marks so far, for the kitchen',
  })
  @ApiOkResponse({ type: HeadcountResponse })
  @ApiRoleAuth(400)
  getHeadcount(@Query() query: HeadcountQuery): Promise<HeadcountResponse> {
    return this.analytics.headcount(query.date, query.names === 'true');
  }

  @Get('messes')
  @Allow('messes.manage')
  @ApiOperation({
    summary: "The university's view: every mess's month side by side (default this month), with totals",
    description:
      'Admin. One row per mess, ordered by messName. `members`: approved diners now; `activeMembers` and ' +
      '`mealsServed` (present marks) of the month, as its bill counts them; `totalExpenses` of the month; ' +
      '`costPerMeal` = totalExpenses / mealsServed rounded half up to the paisa (0 when no meal was served); ' +
      "`attendanceRate` and `healthScore` exactly as the mess's own `GET /analytics/attendance` and " +
      '`GET /analytics/health` (`overallScore`) give them for the month (a closed month from its frozen ' +
      "figures); `averageRating` the month's mean rating, two decimals (null when none); `due` the sum of the " +
      "positive balances of the mess's accounts now. `totals` add the rows exactly (in paise); their " +
      '`costPerMeal` is computed from the totals. The `mess` parameter does not narrow it.',
  })
  @ApiOkResponse({ type: UniversityViewResponse })
  @ApiRoleAuth(400)
  async getUniversityView(@Query() query: MonthQuery): Promise<UniversityViewResponse> {
    return toUniversityViewResponse(await this.university.view(query.month));
  }
}
