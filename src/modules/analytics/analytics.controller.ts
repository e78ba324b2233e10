import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Allow } from '../../common/auth/auth.decorators';
import { ApiRoleAuth } from '../../common/http/api-docs';
import { AnalyticsService } from './analytics.service';
import {
  AttendanceAnalyticsResponse,
  DayQuery,
  ExpenseAnalyticsQuery,
  ExpenseAnalyticsResponse,
  HeadcountResponse,
  HealthScoreResponse,
  MonthQuery,
  PeriodQuery,
} from './dto/analytics.dto';

@ApiTags('Analytics')
@Controller('analytics')
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

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
  getHeadcount(@Query() query: DayQuery): Promise<HeadcountResponse> {
    return this.analytics.headcount(query.date);
  }
}
