import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { UuidListField } from '../../common/http/fields';
import { UserEnvelopeDto } from '../users';

export class MoveMemberDto {
  @ApiProperty({ example: 'hostel-7', description: 'The mess to move to: an _id or a slug' })
  @Length(1, 40)
  @IsString()
  mess: string;
}

export const BATCH_MAX = 1_000;

export class MoveMembersDto {
  @UuidListField(1, BATCH_MAX, { description: `1 to ${BATCH_MAX} distinct user ids; all move or none` })
  userIds: string[];
}

export class MovedEnvelopeDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ description: 'How many members changed mess (members already there are not counted)' })
  moved: number;
}

export { UserEnvelopeDto };
