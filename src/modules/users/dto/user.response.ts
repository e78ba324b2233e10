import type { MessLabel } from '../../messes';
import { PaginationDto } from '../../../common/http/paging';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ROLES, USER_STATUSES, type Role, type UserRow, type UserStatus } from '../users.schema';

/** The mess a member belongs to now (extension 2.2). */
export class UserMessDto {
  @ApiProperty({ example: '00000000-0000-4000-8000-000000000001' }) _id: string;
  @ApiProperty({ example: 'main' }) slug: string;
  @ApiProperty({ example: 'Hostel 7 Mess' }) messName: string;
}

export class NoticeAcceptedDto {
  @ApiProperty({ example: '2026-11' }) version: string;
  @ApiProperty({ format: 'date-time' }) at: string;
}

export class UserSummaryDto {
  @ApiProperty({ example: '0193a5e4-7c1a-7c9e-9d3b-4a1f2e3d4c5b' }) _id: string;
  @ApiProperty({ example: 'asha@college.edu' }) email: string;
  @ApiProperty({ example: 'Asha Verma' }) fullName: string;
  @ApiProperty({ enum: ROLES }) role: Role;
  @ApiProperty({ enum: USER_STATUSES }) status: UserStatus;
  @ApiProperty({ type: UserMessDto, description: 'The mess the member belongs to now' }) mess: UserMessDto;
}

export class UserResponseDto extends UserSummaryDto {
  @ApiProperty({ example: 'CS21B042' }) collegeId: string;
  @ApiProperty({ example: 'B-214' }) room: string;
  @ApiProperty({ type: String, nullable: true, example: '+919876543210' }) phone: string | null;
  @ApiProperty({
    example: true,
    description: 'Eats at the mess: counted in totalMembers, the headcount, the attendance rate and the bill',
  })
  dines: boolean;
  @ApiPropertyOptional({ description: 'Present only for users created through the identity provider' })
  idpId?: string;
  @ApiProperty({
    type: NoticeAcceptedDto,
    nullable: true,
    description:
      'The privacy notice version the member accepted and when (extension 2.3); null: none. A version other than ' +
      "`GET /privacy`'s asks the member to accept the notice again (`PUT /users/{id} {acceptNotice}`)",
  })
  noticeAccepted: NoticeAcceptedDto | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

/** `messes`: every mess's label by id (MessDirectory.labels()), for the member's `mess`. */
export const toUserSummary = (
  row: Pick<UserRow, 'id' | 'email' | 'fullName' | 'role' | 'status' | 'messId'>,
  messes: ReadonlyMap<string, MessLabel>,
): UserSummaryDto => ({
  _id: row.id,
  // An erased member's stored address is a placeholder that names nobody (decision 0010): shown as none.
  email: row.status === 'erased' ? '' : row.email,
  fullName: row.fullName,
  role: row.role,
  status: row.status,
  mess: messes.get(row.messId) ?? { _id: row.messId, slug: '', messName: '' },
});

/** The password hash and token version never leave the service. */
export const toUserResponse = (row: UserRow, messes: ReadonlyMap<string, MessLabel>): UserResponseDto => ({
  ...toUserSummary(row, messes),
  collegeId: row.collegeId,
  room: row.room,
  phone: row.phone,
  dines: row.dines,
  ...(row.idpId ? { idpId: row.idpId } : {}),
  noticeAccepted:
    row.noticeVersion && row.noticeAcceptedAt
      ? { version: row.noticeVersion, at: row.noticeAcceptedAt.toISOString() }
      : null,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export class UserEnvelopeDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: UserResponseDto }) user: UserResponseDto;
}

export class UserStatusChangeDto extends UserEnvelopeDto {
  @ApiProperty({ example: 'User approved' }) message: string;
}

export class ApprovedEnvelopeDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({
    description: 'How many members were approved (members already approved are not counted)',
    example: 1,
  })
  approved: number;
}

export class UserListDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: [UserResponseDto] }) users: UserResponseDto[];
  @ApiProperty({ type: PaginationDto }) pagination: PaginationDto;
}
