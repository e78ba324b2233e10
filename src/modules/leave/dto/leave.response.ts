import { ApiProperty } from '@nestjs/swagger';
import { PaginationDto } from '../../../common/http/paging';
import { LEAVE_STATUSES, type LeaveRow, type LeaveStatus } from '../../leave-calendar';

export class LeaveMemberDto {
  @ApiProperty({ example: '0193a5e4-7c1a-7c9e-9d3b-4a1f2e3d4c5b' }) _id: string;
  @ApiProperty({ example: 'Asha Verma' }) fullName: string;
}

export class LeaveDto {
  @ApiProperty({ example: '0193a5e4-9b2c-7d11-8e3f-5a6b7c8d9e0f' }) _id: string;
  @ApiProperty({ type: LeaveMemberDto, description: 'The member on leave' }) userId: LeaveMemberDto;
  @ApiProperty({ format: 'date', example: '2025-03-14' }) startDate: string;
  @ApiProperty({ format: 'date', example: '2025-03-16' }) endDate: string;
  @ApiProperty({ example: 'Breakfast' }) startMealType: string;
  @ApiProperty({ example: 'Dinner' }) endMealType: string;
  @ApiProperty({ format: 'date-time', description: 'Start of the first covered meal' }) startsAt: string;
  @ApiProperty({ format: 'date-time', description: 'End of the last covered meal' }) endsAt: string;
  @ApiProperty({ example: 3, description: 'Calendar days with at least one covered meal' }) days: number;
  @ApiProperty({ example: 'Going home for Diwali' }) reason: string;
  @ApiProperty({ enum: LEAVE_STATUSES, example: 'pending' }) status: LeaveStatus;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Who asked: the member, or the manager who recorded it',
  })
  requestedBy: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The manager or admin who decided; null when pending or approved by the policy',
  })
  decidedBy: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) decidedAt: string | null;
  @ApiProperty({ example: '', description: "A rejection's reason" }) decisionNote: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export const toLeaveResponse = (row: LeaveRow, fullName: string | null): LeaveDto => ({
  _id: row.id,
  userId: { _id: row.userId, fullName: fullName ?? '' },
  startDate: row.startDate,
  endDate: row.endDate,
  startMealType: row.startMealType,
  endMealType: row.endMealType,
  startsAt: row.startsAt.toISOString(),
  endsAt: row.endsAt.toISOString(),
  days: row.days,
  reason: row.reason,
  status: row.status,
  requestedBy: row.requestedBy,
  decidedBy: row.decidedBy,
  decidedAt: row.decidedAt ? row.decidedAt.toISOString() : null,
  decisionNote: row.decisionNote,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export class LeaveEnvelopeDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: LeaveDto }) leave: LeaveDto;
}

export class LeaveListDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: [LeaveDto] }) leaves: LeaveDto[];
  @ApiProperty({ type: PaginationDto }) pagination: PaginationDto;
}
