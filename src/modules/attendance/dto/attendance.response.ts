import { ApiProperty } from '@nestjs/swagger';
import { PaginationDto } from '../../../common/http/paging';
import {
  ATTENDANCE_STATUSES,
  MARK_SOURCES,
  type AttendanceRow,
  type AttendanceStatus,
  type MarkSource,
} from '../attendance.schema';
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
  @ApiProperty({
    enum: MARK_SOURCES,
    example: 'member',
    description:
      'Who made the mark: the member; the mess (a manager or an admin for the member, alone or in bulk); or the ' +
      "counter (a scanned pass). A mess or counter mark is the kitchen's record: the member cannot change it",
  })
  source: MarkSource;
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
  source: row.source,
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

export class PassResponseDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({
    example:
      'p1.WyIwMTkzYTVlNC03YzFhLTdjOWUtOWQzYi00YTFmMmUzZDRjNWIiLCIyMDI1LTAzLTE0IiwiTHVuY2giLDE3NDE5MzQ4MDAsMTc0MTk0MjgwMF0.c2lnbmF0dXJl',
    description:
      'The signed pass: the text the QR code holds, and what the counter posts to /attendance/scan',
  })
  pass: string;
  @ApiProperty({ format: 'date-time', description: "Valid from: 30 minutes before the meal's start" })
  validFrom: string;
  @ApiProperty({ format: 'date-time', description: "Valid until: the meal's end" }) expiresAt: string;
  @ApiProperty({
    example: '<svg xmlns="http://www.w3.org/2000/svg" …</svg>',
    description: 'The pass as an SVG QR code',
  })
  qrSvg: string;
}

export class ScanResultDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: AttendanceDto }) attendance: AttendanceDto;
  @ApiProperty({
    example: false,
    description:
      'true: the mess or the counter had already recorded this member present for this meal (a second plate)',
  })
  repeat: boolean;
}
