import { ApiPropertyOptional, ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { IndianPhoneField, TextField } from '../../../common/http/fields';
import { ROLES, USER_STATUSES, type Role, type UserStatus } from '../users.schema';

export class ListUsersQuery {
  @ApiPropertyOptional({ enum: USER_STATUSES })
  @IsOptional()
  @IsIn(USER_STATUSES)
  status?: UserStatus;

  @ApiPropertyOptional({ enum: ROLES })
  @IsOptional()
  @IsIn(ROLES)
  role?: Role;

  @ApiPropertyOptional({ default: 1, minimum: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100_000)
  page: number = 1;

  @ApiPropertyOptional({ default: 100, minimum: 1, maximum: 500 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  limit: number = 100;
}

export class UpdateProfileDto {
  @TextField(1, 100, { optional: true, example: 'Asha Verma' })
  fullName?: string;

  @IndianPhoneField({ optional: true })
  phone?: string;
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
