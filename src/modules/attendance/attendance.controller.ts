import { Body, Controller, Get, Param, Post, Put, Query, UseInterceptors } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type CurrentMember, CurrentUser, Roles } from '../../common/auth/auth.decorators';
import { ApiAuth, ApiRoleAuth, MONTH_CLOSED } from '../../common/http/api-docs';
import { IdPipe } from '../../common/http/id.pipe';
import { AttendanceService } from './attendance.service';
import {
  BulkAttendanceDto,
  ListAttendanceQuery,
  MarkAttendanceDto,
  MAX_BULK_MARKS,
  UpdateAttendanceDto,
} from './dto/attendance.requests';
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
  constructor(private readonly attendance: AttendanceService) {}

  @Get()
  @ApiOperation({
    summary: 'List attendance marks, newest date first, with the member nested as `user: {_id, fullName}`',
    description:
      'Students always get their own marks only, whatever `userId` they pass; managers, treasurers and admins ' +
      'see every member. `month` selects the calendar dates of that month in the mess time zone. Paged: ' +
      '`limit` defaults to 100, at most 500.',
  })
  @ApiOkResponse({ type: AttendanceListDto })
  @ApiAuth(400)
  async list(
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
      'another member gets 403.',
  })
  @ApiCreatedResponse({ type: AttendanceEnvelopeDto, description: 'A new mark' })
  @ApiOkResponse({ type: AttendanceEnvelopeDto, description: 'An existing mark, changed or re-stated' })
  @ApiAuth(400, [403, 'You can only mark your own attendance'], [404, 'User not found'], [409, MONTH_CLOSED])
  async mark(
    @CurrentUser() caller: CurrentMember,
    @Body() body: MarkAttendanceDto,
  ): Promise<Upserted<AttendanceEnvelopeDto>> {
    const { row, created } = await this.attendance.mark(caller, body);
    return new Upserted(created, { success: true, attendance: toAttendanceResponse(row) });
  }

  @Post('bulk')
  @Roles('manager')
  @UseInterceptors(UpsertStatusInterceptor)
  @ApiOperation({
    summary: `Mark one meal slot for up to ${MAX_BULK_MARKS} members at once (manager, admin)`,
    description:
      'One transaction, all or nothing: if any entry names an unknown or unapproved member, or repeats a ' +
      'userId, nothing is written and the 400 lists each bad entry (`marks.<i>.userId`). Each entry is an ' +
      'upsert like POST /attendance. 201 when at least one mark was created, 200 otherwise.',
  })
  @ApiCreatedResponse({ type: BulkAttendanceResultDto, description: 'At least one mark was new' })
  @ApiOkResponse({ type: BulkAttendanceResultDto, description: 'Every mark existed already' })
  @ApiRoleAuth(400, [409, MONTH_CLOSED])
  async markMany(
    @CurrentUser() caller: CurrentMember,
    @Body() body: BulkAttendanceDto,
  ): Promise<Upserted<BulkAttendanceResultDto>> {
    const outcome = await this.attendance.markMany(caller, body);
    return new Upserted(outcome.created > 0, {
      success: true,
      attendance: outcome.rows.map(toAttendanceResponse),
      summary: { created: outcome.created, updated: outcome.updated, unchanged: outcome.unchanged },
    });
  }

  @Put(':id')
  @ApiOperation({
    summary: "Change a mark's status: the member who owns it, a manager or an admin",
  })
  @ApiOkResponse({ type: AttendanceEnvelopeDto })
  @ApiAuth(
    400,
    [403, 'You can only change your own attendance'],
    [404, 'Attendance record not found'],
    [409, MONTH_CLOSED],
  )
  async changeStatus(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
    @Body() body: UpdateAttendanceDto,
  ): Promise<AttendanceEnvelopeDto> {
    const row = await this.attendance.changeStatus(caller, id, body.status);
    return { success: true, attendance: toAttendanceResponse(row) };
  }
}
