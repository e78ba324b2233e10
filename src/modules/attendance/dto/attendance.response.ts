import { ApiProperty } from '@nestjs/swagger';
import { PaginationDto } from '../../../common/http/paging';
import { ATTENDANCE_STATUSES, type AttendanceRow, type AttendanceStatus } from '../attendance.schema';
import type { AttendanceListRow } from '../attendance.repository';

export class AttendanceDto {
  @ApiProperty({ example: '0193a5e4-9b2c-7d11-8e3f-5a6b7c8d9e0f' }) _id: string;
  @ApiProperty({ example: '0193a5e4-7c1a-7c9e-9d3b-4a1f2e3d4c5b' }) userId: string;
  @ApiProperty({ format: 'date', example: '2025-03-14' }) date: string;
  @ApiProperty({ example: 'Lunch' }) mealType: string;
  @ApiProperty({ enum: ATTENDANCE_STATUSES, example: 'present' }) status: AttendanceStatus;
  @ApiProperty({ format: 'date-time', description: 'When the current status was set' }) markedAt: string;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Who set the current status: the member, or the manager/admin who marked for them',
  })
  markedBy: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class AttendanceMemberDto {
  @ApiProperty({ example: '0193a5e4-7c1a-7c9e-9d3b-4a1f2e3d4c5b' }) _id: string;
  @ApiProperty({ example: 'Asha Verma' }) fullName: string;
}

export class AttendanceListItemDto extends AttendanceDto {
  @ApiProperty({ type: AttendanceMemberDto, description: 'The member the mark belongs to' })
  user: AttendanceMemberDto;
}

export const toAttendanceResponse = (row: AttendanceRow): AttendanceDto => ({
  _id: row.id,
  userId: row.userId,
  date: row.date,
  mealType: row.mealType,
  status: row.status,
  markedAt: row.markedAt.toISOString(),
  markedBy: row.markedBy,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export const toAttendanceListItem = (row: AttendanceListRow): AttendanceListItemDto => ({
  ...toAttendanceResponse(row),
  user: { _id: row.userId, fullName: row.fullName ?? '' },
});

export class AttendanceEnvelopeDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: AttendanceDto }) attendance: AttendanceDto;
}

export class AttendanceListDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: [AttendanceListItemDto] }) attendance: AttendanceListItemDto[];
  @ApiProperty({ type: PaginationDto }) pagination: PaginationDto;
}

export class BulkSummaryDto {
  @ApiProperty({ example: 40, description: 'Marks that did not exist before' }) created: number;
  @ApiProperty({ example: 3, description: 'Existing marks whose status changed' }) updated: number;
  @ApiProperty({ example: 2, description: 'Existing marks that already had the status sent' })
  unchanged: number;
}

export class BulkAttendanceResultDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({
    type: [AttendanceDto],
    description: 'Every mark of the request as stored now, in its order',
  })
  attendance: AttendanceDto[];
  @ApiProperty({ type: BulkSummaryDto }) summary: BulkSummaryDto;
}
