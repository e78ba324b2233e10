import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Equals, IsIn } from 'class-validator';
import { Optional, TextField } from '../../../common/http/fields';
import { UserResponseDto } from '../../users';
import { ERASURE_REASON_MAX, ERASURE_REQUEST_STATUSES, type ErasureRequestStatus } from '../privacy.schema';
import type { ErasureRequestWithName } from '../erasure-requests.repository';

export class RequestErasureDto {
  @TextField(1, ERASURE_REASON_MAX, {
    optional: true,
    multiline: true,
    example: 'I left the hostel in May',
    description: 'Why (optional); emptied when the erasure is done',
  })
  reason?: string;
}

export class EraseMemberDto {
  @ApiProperty({ enum: [true], description: 'Must be true: erasure cannot be undone' })
  @Equals(true, { message: 'confirm must be true: erasure cannot be undone' })
  confirm: true;
}

export class ListErasureRequestsQuery {
  @ApiPropertyOptional({ enum: ERASURE_REQUEST_STATUSES, description: 'Left out: every status' })
  @Optional()
  @IsIn(ERASURE_REQUEST_STATUSES)
  status?: ErasureRequestStatus;
}

export class PendingErasureRequestDto {
  @ApiProperty() _id: string;
  @ApiProperty({ enum: ['pending'] }) status: 'pending';
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class ErasureRequestEnvelopeDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: PendingErasureRequestDto }) request: PendingErasureRequestDto;
}

class RequesterDto {
  @ApiProperty() _id: string;
  @ApiProperty({ example: 'Asha Verma', description: 'The pseudonym once erased' }) fullName: string;
}

export class ErasureRequestDto {
  @ApiProperty() _id: string;
  @ApiProperty({ type: RequesterDto }) user: RequesterDto;
  @ApiProperty({ description: "The member's reason; empty once the erasure is done" }) reason: string;
  @ApiProperty({ enum: ERASURE_REQUEST_STATUSES }) status: ErasureRequestStatus;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) decidedAt: string | null;
}

export class ErasureRequestListDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: [ErasureRequestDto] }) requests: ErasureRequestDto[];
}

export class ErasedUserEnvelopeDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: UserResponseDto, description: "The pseudonymised member, `status: 'erased'`" })
  user: UserResponseDto;
}

export const toErasureRequest = (row: ErasureRequestWithName): ErasureRequestDto => ({
  _id: row.id,
  user: { _id: row.userId, fullName: row.fullName },
  reason: row.reason,
  status: row.status,
  createdAt: row.createdAt.toISOString(),
  decidedAt: row.decidedAt ? row.decidedAt.toISOString() : null,
});
