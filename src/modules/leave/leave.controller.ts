import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type CurrentMember,
  CurrentUser,
  Allow,
  OwnRecordsInAnyMess,
} from '../../common/auth/auth.decorators';
import { ApiAuth, ApiRoleAuth } from '../../common/http/api-docs';
import { IdPipe } from '../../common/http/id.pipe';
import { CreateLeaveDto, ListLeavesQuery, RejectLeaveDto } from './dto/leave.requests';
import { LeaveEnvelopeDto, LeaveListDto, toLeaveResponse } from './dto/leave.response';
import {
  ALREADY_DECIDED,
  CANCEL_TOO_LATE,
  LEAVE_EATEN,
  LEAVE_NOT_FOUND,
  LEAVE_OVERLAPS,
  ONLY_PENDING_APPROVED,
  ONLY_PENDING_REJECTED,
  OWN_LEAVE_ONLY,
} from './leave.errors';
import { LeaveDecisionsService } from './leave-decisions.service';
import { MAX_LEAVE_DAYS } from './leave-policy';
import { LeaveService } from './leave.service';
import type { LeaveRow } from '../leave-calendar';

const MONTH_CLOSED_LEAVE = 'Month 2025-03 is closed: its bill is frozen. An admin can reopen it.';
const LATE = {
  error: 'Validation failed',
  details: [
    {
      field: 'startDate',
      message:
        'ask at least 12 hours before the first meal (Breakfast on 2025-03-14); a manager can record a late leave',
    },
  ],
};

@ApiTags('Leave')
@Controller('leaves')
export class LeaveController {
  constructor(
    private readonly leave: LeaveService,
    private readonly decisions: LeaveDecisionsService,
  ) {}

  private async envelope(row: LeaveRow): Promise<LeaveEnvelopeDto> {
    return { success: true, leave: toLeaveResponse(row, await this.leave.fullNameOf(row.userId)) };
  }

  @Post()
  @ApiOperation({
    summary: 'Ask for leave (any member); a manager or an admin records one for a member with `userId`',
    description:
      'Covers the meals from `startMealType` of `startDate` (default its first meal) to `endMealType` of ' +
      "`endDate` (default its last). The mess's `leavePolicy` applies: 400 when the leave is shorter than " +
      '`minDays` (a day counts when any of its meals is covered), asked for later than `applyBeforeHours` before ' +
      `its first meal, ends before it starts, is longer than ${MAX_LEAVE_DAYS} days, or would take the member's ` +
      "pending and approved days of a month past `maxDaysPerMonth`; 409 when it overlaps the member's pending or " +
      'approved leave (also when two requests arrive at once: one is accepted) or touches a closed month. ' +
      'Approved at once when the policy needs no approval, and when a manager or an admin records it for a ' +
      "member (exempt from `applyBeforeHours`: the member phoned in); approval turns the member's own present " +
      'marks in it absent (409 when the mess recorded a covered meal eaten).',
  })
  @ApiBody({
    type: CreateLeaveDto,
    examples: {
      member: {
        summary: 'A member asks for three days',
        value: { startDate: '2030-03-14', endDate: '2030-03-16', reason: 'Going home for Diwali' },
      },
      forMember: {
        summary: 'A manager records a late leave for a member',
        value: {
          startDate: '2030-03-14',
          endDate: '2030-03-14',
          startMealType: 'Lunch',
          endMealType: 'Dinner',
          userId: '0193a5e4-7c1a-7c9e-9d3b-4a1f2e3d4c5b',
        },
      },
    },
  })
  @ApiCreatedResponse({ type: LeaveEnvelopeDto })
  @ApiAuth(
    [400, LATE],
    [403, OWN_LEAVE_ONLY],
    [404, 'User not found'],
    [409, LEAVE_OVERLAPS, MONTH_CLOSED_LEAVE, LEAVE_EATEN],
  )
  async requestLeave(
    @CurrentUser() caller: CurrentMember,
    @Body() body: CreateLeaveDto,
  ): Promise<LeaveEnvelopeDto> {
    return this.envelope(await this.leave.create(caller, body));
  }

  @Get()
  @OwnRecordsInAnyMess()
  @ApiOperation({
    summary: "List leave, newest first: members their own, managers and admins everyone's",
    description:
      '`month` and `date` select the leaves with a day in that month or on that date; `userId` one member ' +
      '(ignored for members). Paged: `limit` defaults to 20, at most 100.',
  })
  @ApiOkResponse({ type: LeaveListDto })
  @ApiAuth(400)
  async listLeaves(
    @CurrentUser() caller: CurrentMember,
    @Query() query: ListLeavesQuery,
  ): Promise<LeaveListDto> {
    const { rows, total } = await this.leave.list(caller, query);
    return {
      success: true,
      leaves: rows.map((row) => toLeaveResponse(row, row.fullName)),
      pagination: { page: query.page, limit: query.limit, total },
    };
  }

  @Put(':id/approve')
  @Allow('leave.decide')
  @ApiOperation({
    summary: 'Approve a pending leave (manager, admin); idempotent',
    description:
      "In one transaction: the member's own present marks for covered meals become absent, and the leave is " +
      "approved. 409 when a covered meal was recorded eaten by the mess (a scan, a manager's mark), when the " +
      'leave is rejected or cancelled, or touches a closed month. The member is told (LEAVE_DECIDED).',
  })
  @ApiOkResponse({ type: LeaveEnvelopeDto })
  @ApiRoleAuth([404, LEAVE_NOT_FOUND], [409, LEAVE_EATEN, ONLY_PENDING_APPROVED, MONTH_CLOSED_LEAVE])
  async approveLeave(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
  ): Promise<LeaveEnvelopeDto> {
    return this.envelope(await this.decisions.approve(caller, id));
  }

  @Put(':id/reject')
  @Allow('leave.decide')
  @ApiOperation({
    summary: 'Reject a pending leave (manager, admin), with an optional reason; idempotent',
    description: 'An approved leave is cancelled, not rejected (409). The member is told (LEAVE_DECIDED).',
  })
  @ApiBody({
    type: RejectLeaveDto,
    required: false,
    examples: { reason: { value: { reason: 'Exams week' } } },
  })
  @ApiOkResponse({ type: LeaveEnvelopeDto })
  @ApiRoleAuth(400, [404, LEAVE_NOT_FOUND], [409, ONLY_PENDING_REJECTED])
  async rejectLeave(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
    @Body() body: RejectLeaveDto = {},
  ): Promise<LeaveEnvelopeDto> {
    return this.envelope(await this.decisions.reject(caller, id, body?.reason));
  }

  @Put(':id/cancel')
  @ApiOperation({
    summary:
      'Cancel a pending or approved leave: the member before its first meal starts; managers and admins any time',
    description:
      'Idempotent. Marks an approval turned absent stay absent: the member marks again what they will eat.',
  })
  @ApiOkResponse({ type: LeaveEnvelopeDto })
  @ApiAuth([403, OWN_LEAVE_ONLY], [404, LEAVE_NOT_FOUND], [409, CANCEL_TOO_LATE, ALREADY_DECIDED])
  async cancelLeave(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
  ): Promise<LeaveEnvelopeDto> {
    return this.envelope(await this.decisions.cancel(caller, id));
  }
}
