import { Body, Controller, Get, Param, Post, Put, Query, UseInterceptors } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type CurrentMember,
  CurrentUser,
  Allow,
  OwnRecordsInAnyMess,
} from '../../common/auth/auth.decorators';
import { ApiAuth, ApiRoleAuth, MONTH_CLOSED } from '../../common/http/api-docs';
import { IdPipe } from '../../common/http/id.pipe';
import { AttendanceService } from './attendance.service';
import { BulkMarkingService } from './bulk-marking.service';
import {
  BulkAttendanceDto,
  ListAttendanceQuery,
  MarkAttendanceDto,
  MAX_BULK_MARKS,
  UpdateAttendanceDto,
} from './dto/attendance.requests';
import {
  MARKING_CLOSED,
  MESS_MADE_MARK,
  MEMBER_NOT_A_DINER,
  NOT_A_DINER,
  ON_LEAVE,
} from './attendance.errors';
import {
  AttendanceEnvelopeDto,
  AttendanceListDto,
  BulkAttendanceResultDto,
  toAttendanceListItem,
  toAttendanceResponse,
} from './dto/attendance.response';
import { Upserted, UpsertStatusInterceptor } from './upsert-status.interceptor';

@ApiTags('Attendance')
@Controller('attendance')
export class AttendanceController {
  constructor(
    private readonly attendance: AttendanceService,
    private readonly bulk: BulkMarkingService,
  ) {}

  @Get()
  @OwnRecordsInAnyMess()
  @ApiOperation({
    summary: 'List attendance marks, newest date first, with the member nested as `user: {_id, fullName}`',
    description:
      'Students always get their own marks only, whatever `userId` they pass; managers, treasurers and admins ' +
      'see every member. `month` selects the calendar dates of that month in the mess time zone. Paged: ' +
      '`limit` defaults to 100, at most 500.',
  })
  @ApiOkResponse({ type: AttendanceListDto })
  @ApiAuth(400)
  async listAttendance(
    @CurrentUser() caller: CurrentMember,
    @Query() query: ListAttendanceQuery,
  ): Promise<AttendanceListDto> {
    const { rows, total } = await this.attendance.list(caller, query);
    return {
      success: true,
      attendance: rows.map(toAttendanceListItem),
      pagination: { page: query.page, limit: query.limit, total },
    };
  }

  @Post()
  @UseInterceptors(UpsertStatusInterceptor)
  @ApiOperation({
    summary: 'Mark attendance for a meal slot: an upsert of (member, date, mealType)',
    description:
      '201 when the mark is new; 200 when it changed the stored status or re-stated it (a re-statement ' +
      'writes nothing). Safe to retry. `mealType` must be a configured meal time. Managers and admins may mark ' +
      'for another approved member with `userId` (unknown member 404, not approved 400); anyone else naming ' +
      'another member gets 403. A mark made for a member by a manager, an admin or the counter is the ' +
      "kitchen's record: the member's own mark cannot change it (409). With the mess's `markingWindow` set, a " +
      'member marks their own meals only inside it (409). Members with `dines: false` cannot mark their own meals ' +
      '(409), and nobody marks them present (409 `' +
      MEMBER_NOT_A_DINER +
      '`). Nobody marks a member present for a meal their approved leave covers (409 `On leave`).',
  })
  @ApiCreatedResponse({ type: AttendanceEnvelopeDto, description: 'A new mark' })
  @ApiOkResponse({ type: AttendanceEnvelopeDto, description: 'An existing mark, changed or re-stated' })
  @ApiAuth(
    400,
    [403, 'You can only mark your own attendance'],
    [404, 'User not found'],
    [409, MESS_MADE_MARK, MARKING_CLOSED, NOT_A_DINER, MEMBER_NOT_A_DINER, ON_LEAVE, MONTH_CLOSED],
  )
  async markAttendance(
    @CurrentUser() caller: CurrentMember,
    @Body() body: MarkAttendanceDto,
  ): Promise<Upserted<AttendanceEnvelopeDto>> {
    const { row, created } = await this.attendance.mark(caller, body);
    return new Upserted(created, { success: true, attendance: toAttendanceResponse(row) });
  }

  @Post('bulk')
  @Allow('attendance.mark-others')
  @UseInterceptors(UpsertStatusInterceptor)
  @ApiOperation({
    summary: `Mark one meal slot for up to ${MAX_BULK_MARKS} members at once (manager, admin)`,
    description:
      'One transaction, all or nothing: if any entry names an unknown or unapproved member, or repeats a ' +
      'userId, nothing is written and the 400 lists each bad entry (`marks.<i>.userId`). Each entry is an ' +
      'upsert like POST /attendance. 201 when at least one mark was created, 200 otherwise. The marks become ' +
      "the kitchen's record (a member's own mark of the same status is taken over). A present mark for a member " +
      'whose approved leave covers the meal fails the request (409 `On leave`, one `details` entry per row).',
  })
  @ApiCreatedResponse({ type: BulkAttendanceResultDto, description: 'At least one mark was new' })
  @ApiOkResponse({ type: BulkAttendanceResultDto, description: 'Every mark existed already' })
  @ApiRoleAuth(400, [409, ON_LEAVE, MONTH_CLOSED])
  async markAttendanceBulk(
    @CurrentUser() caller: CurrentMember,
    @Body() body: BulkAttendanceDto,
  ): Promise<Upserted<BulkAttendanceResultDto>> {
    const outcome = await this.bulk.markMany(caller, body);
    return new Upserted(outcome.created > 0, {
      success: true,
      attendance: outcome.rows.map(toAttendanceResponse),
      summary: { created: outcome.created, updated: outcome.updated, unchanged: outcome.unchanged },
    });
  }

  @Put(':id')
  @ApiOperation({
    summary: "Change a mark's status: the member who owns it, a manager or an admin",
    description:
      "The owner changes only their own marks (not the mess's or the counter's), inside the marking window, and " +
      'not to present for a meal their approved leave covers; managers and admins change any mark until the ' +
      'month is closed.',
  })
  @ApiOkResponse({ type: AttendanceEnvelopeDto })
  @ApiAuth(
    400,
    [403, 'You can only change your own attendance'],
    [404, 'Attendance record not found'],
    [409, MESS_MADE_MARK, MARKING_CLOSED, NOT_A_DINER, MEMBER_NOT_A_DINER, ON_LEAVE, MONTH_CLOSED],
  )
  async changeAttendanceStatus(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
    @Body() body: UpdateAttendanceDto,
  ): Promise<AttendanceEnvelopeDto> {
    const row = await this.attendance.changeStatus(caller, id, body.status);
    return { success: true, attendance: toAttendanceResponse(row) };
  }
}
