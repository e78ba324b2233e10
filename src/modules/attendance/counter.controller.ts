import { Body, Controller, Get, Post, Query, UseInterceptors } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type CurrentMember, CurrentUser, Allow } from '../../common/auth/auth.decorators';
import { ApiAuth, ApiRoleAuth, MONTH_CLOSED } from '../../common/http/api-docs';
import { INVALID_PASS, MEMBER_NOT_A_DINER, ON_LEAVE, PASS_MEAL_OVER } from './attendance.errors';
import { CounterService } from './counter.service';
import { PassQuery, ScanDto } from './dto/attendance.requests';
import { PassResponseDto, ScanResultDto, toAttendanceResponse } from './dto/attendance.response';
import { Upserted, UpsertStatusInterceptor } from './upsert-status.interceptor';

/** The counter's routes: a member's meal pass, and its scan. Under /attendance, as the marks they make. */
@ApiTags('Attendance')
@Controller('attendance')
export class CounterController {
  constructor(private readonly counter: CounterService) {}

  @Get('pass')
  @ApiOperation({
    summary: "The caller's signed pass for a meal, with its QR code (the counter scans it)",
    description:
      "A short pass signed with the service's pass key (PASS_SECRET, or derived from JWT_SECRET under its own " +
      "label; never the login token's key), bound to the caller, the date and the meal. It is valid from 30 " +
      "minutes before the meal's start to its end; a meal that has ended gets 400, a later one a pass that " +
      'becomes valid in its window. `qrSvg` holds the pass as an SVG QR code.',
  })
  @ApiOkResponse({ type: PassResponseDto })
  @ApiAuth([400, { error: PASS_MEAL_OVER, details: [{ field: 'date', message: PASS_MEAL_OVER }] }])
  async getMealPass(
    @CurrentUser() caller: CurrentMember,
    @Query() query: PassQuery,
  ): Promise<PassResponseDto> {
    const issued = await this.counter.issuePass(caller, query);
    return {
      success: true,
      pass: issued.pass,
      validFrom: issued.validFrom.toISOString(),
      expiresAt: issued.expiresAt.toISOString(),
      qrSvg: issued.qrSvg,
    };
  }

  @Post('scan')
  @Allow('counter.scan')
  @UseInterceptors(UpsertStatusInterceptor)
  @ApiOperation({
    summary: "The counter: mark a pass's member present for its meal (manager, admin)",
    description:
      '201 `repeat: false` when it marked the member present (a new mark, an absent one changed, or the ' +
      "member's own present mark taken over as the kitchen's record); 200 `repeat: true` when the mess or the " +
      'counter had already recorded them present (a second plate). 50 scans of one pass at once mark once. ' +
      '400 `Invalid pass` for a forged, tampered, expired or not-yet-valid pass; 409 when the member is on ' +
      'approved leave for the meal, does not dine at the mess (`dines: false`), or its month is closed.',
  })
  @ApiBody({ type: ScanDto })
  @ApiCreatedResponse({ type: ScanResultDto, description: 'Marked present' })
  @ApiOkResponse({ type: ScanResultDto, description: 'Already recorded present: a second plate' })
  @ApiRoleAuth(
    [400, { error: INVALID_PASS, details: [{ field: 'pass', message: INVALID_PASS }] }],
    [409, ON_LEAVE, MEMBER_NOT_A_DINER, MONTH_CLOSED],
  )
  async scanMealPass(
    @CurrentUser() caller: CurrentMember,
    @Body() body: ScanDto,
  ): Promise<Upserted<ScanResultDto>> {
    const { row, repeat } = await this.counter.scan(caller, body.pass);
    return new Upserted(!repeat, { success: true, attendance: toAttendanceResponse(row), repeat });
  }
}
