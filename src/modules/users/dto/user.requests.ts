import { PageQuery } from '../../../common/http/paging';
import { ApiPropertyOptional, ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsString, Length } from 'class-validator';
import { IndianPhoneField, Optional, TextField, UuidListField } from '../../../common/http/fields';
import { ROLES, USER_STATUSES, type Role, type UserStatus } from '../users.schema';

export class ListUsersQuery extends PageQuery(100, 500) {
  @ApiPropertyOptional({
    enum: USER_STATUSES,
    description: 'Left out: every status but `erased` (extension 2.3: erased members only when asked for)',
  })
  @Optional()
  @IsIn(USER_STATUSES)
  status?: UserStatus;

  @ApiPropertyOptional({ enum: ROLES })
  @Optional()
  @IsIn(ROLES)
  role?: Role;
}

export class ListMembersQuery extends PageQuery(50, 500) {
  @ApiPropertyOptional({
    enum: USER_STATUSES,
    description: 'Left out: every status (erased members are on no roster)',
  })
  @Optional()
  @IsIn(USER_STATUSES)
  status?: UserStatus;

  @ApiPropertyOptional({ enum: ROLES })
  @Optional()
  @IsIn(ROLES)
  role?: Role;

  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description: 'Only those who dine (true) or do not (false)',
  })
  @Optional()
  @IsIn(['true', 'false'], { message: 'dines must be true or false' })
  dines?: 'true' | 'false';

  @ApiPropertyOptional({
    description: 'Part of a name or a room, ignoring case (1 to 100 characters)',
    example: 'ash',
  })
  @Optional()
  @Length(1, 100)
  @IsString()
  q?: string;
}

/** A hostel room as registration takes it: 1 to 30 characters after trimming, no control characters. */
export const RoomField = (options: { optional?: boolean } = {}) =>
  TextField(1, 30, { example: 'B-214', description: 'Hostel room, 1 to 30 characters', ...options });

export class UpdateProfileDto {
  @TextField(1, 100, { optional: true, example: 'Asha Verma' })
  fullName?: string;

  @IndianPhoneField({ optional: true })
  phone?: string;

  @RoomField({ optional: true })
  room?: string;

  @TextField(1, 40, {
    optional: true,
    example: '2026-11',
    description:
      'Accept the privacy notice in force (extension 2.3; your own profile only): its version, as `GET /privacy` ' +
      'gives it; another value is 400',
  })
  acceptNotice?: string;
}

export class ChangeRoleDto {
  @ApiProperty({ enum: ROLES, example: 'manager' })
  @IsIn(ROLES, { message: `role must be one of ${ROLES.join(', ')}` })
  role: Role;
}

export class SetPhoneDto {
  @IndianPhoneField()
  phone: string;
}

export class SetDinesDto {
  @ApiProperty({
    example: false,
    description: 'false: the member does not eat at the mess (not counted, not billed)',
  })
  @IsBoolean({ message: 'dines must be true or false' })
  dines: boolean;
}

/** The most members one bulk approval names (a hall's intake at the start of a year). */
export const APPROVE_MAX = 1_000;

export class ApproveUsersDto {
  @UuidListField(1, APPROVE_MAX, {
    description: `1 to ${APPROVE_MAX} distinct user ids; all are approved or none`,
    example: ['0193a5e4-7c1a-7c9e-9d3b-4a1f2e3d4c5b'],
  })
  userIds: string[];
}
