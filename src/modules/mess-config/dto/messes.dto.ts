import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  Allow as Accepted,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  IsObject,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { Optional } from '../../../common/http/fields';
import { CheckedBy } from '../../../common/http/field-checks';
import { MessFieldsPatchCheck } from '../mess-fields.check';
import { CAPACITY_MAX, SLUG_PATTERN } from '../../messes';
import { SetupMessDto } from './mess-config.dto';
import { PrivacyNoticeDto } from '../../privacy-notice';

const SLUG_RULE = 'slug must be 2 to 40 of a-z, 0-9 and -, not starting or ending with -';
const SLUG_DOC = { pattern: SLUG_PATTERN.source, minLength: 2, maxLength: 40 };

/** A UPI id: 2–256 of letters, digits, `.`, `-` and `_`, an `@`, then the handle, 2–64 letters. */
const VPA_PATTERN = /^[a-zA-Z0-9._-]{2,256}@[a-zA-Z]{2,64}$/;
const PAYEE_NAME_MAX = 50;

export class MessUpiDto {
  @ApiProperty({
    example: 'hostel7mess@okaxis',
    description:
      'The virtual payment address members pay to: 2–256 of letters, digits, `.`, `-` and `_`, an `@`, then ' +
      '2–64 letters',
    pattern: VPA_PATTERN.source,
  })
  @Matches(VPA_PATTERN, {
    message:
      'upi.vpa must look like name@bank: 2 to 256 letters, digits, ., - or _, an @, then 2 to 64 letters',
  })
  @IsString()
  vpa: string;

  @ApiProperty({
    example: 'Hostel 7 Mess',
    description: 'The payee name a UPI app shows',
    minLength: 1,
    maxLength: PAYEE_NAME_MAX,
  })
  @Matches(new RegExp(`^[^\\p{Cc}]{1,${PAYEE_NAME_MAX}}$`, 'u'), {
    message: `upi.payeeName must be 1 to ${PAYEE_NAME_MAX} characters, none of them control characters`,
  })
  @IsString()
  payeeName: string;
}

/** The fields of extension 2.2 that setup, `POST /messes` and `PUT /auth/admin/config` also take. */
export class MessFieldsDto extends SetupMessDto {
  @ApiPropertyOptional({
    ...SLUG_DOC,
    example: 'hostel-7',
    description:
      '2–40 of a-z, 0-9 and -, not starting or ending with -; unique. Left out: unchanged (`main` at first)',
  })
  @Matches(SLUG_PATTERN, { message: SLUG_RULE })
  @IsString()
  @Optional()
  slug?: string;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    example: 500,
    description: 'Approved members at most; null: no limit',
  })
  @Max(CAPACITY_MAX)
  @Min(1)
  @IsInt()
  @IsOptional()
  capacity?: number | null;

  @ApiPropertyOptional({ type: MessUpiDto, nullable: true, description: 'Where members pay the mess by UPI' })
  @ValidateNested()
  @Type(() => MessUpiDto)
  @IsOptional()
  upi?: MessUpiDto | null;
}

/**
 * `PUT /auth/admin/config`: the setup body; what `GET /auth/admin/config` returned may be sent back as it is, its
 * read-only fields (`_id`, `configured`, `createdBy`, `createdAt`, `updatedAt`, `timezone`, `today`) are ignored.
 */
export class ReplaceMessConfigDto extends MessFieldsDto {
  @ApiPropertyOptional({ readOnly: true, description: 'Read-only: ignored' }) @Accepted() _id?: unknown;
  @ApiPropertyOptional({ readOnly: true, description: 'Read-only: ignored' })
  @Accepted()
  configured?: unknown;
  @ApiPropertyOptional({ readOnly: true, description: 'Read-only: ignored' }) @Accepted() createdBy?: unknown;
  @ApiPropertyOptional({ readOnly: true, description: 'Read-only: ignored' }) @Accepted() createdAt?: unknown;
  @ApiPropertyOptional({ readOnly: true, description: 'Read-only: ignored' }) @Accepted() updatedAt?: unknown;
  @ApiPropertyOptional({ readOnly: true, description: 'Read-only: ignored' }) @Accepted() timezone?: unknown;
  @ApiPropertyOptional({ readOnly: true, description: 'Read-only: ignored' }) @Accepted() today?: unknown;
}

/**
 * `PATCH /auth/admin/config`: what is sent changes, what is left out stays. `monthlyBudget`, `markingWindow`,
 * `capacity` and `upi` may be sent as null to remove them.
 */
@CheckedBy(MessFieldsPatchCheck)
export class PatchMessConfigDto extends PartialType(ReplaceMessConfigDto) {
  @ApiPropertyOptional({
    type: PrivacyNoticeDto,
    nullable: true,
    description:
      "The deployment's privacy notice (admin; extension 2.3), not a field of the mess: a new version, or null to " +
      'remove it. Left out: unchanged (and every `PUT` leaves it as it is). Read it with `GET /privacy`.',
  })
  @ValidateNested()
  @IsObject()
  @Type(() => PrivacyNoticeDto)
  @ValidateIf((_, value) => value !== null && value !== undefined)
  privacyNotice?: PrivacyNoticeDto | null;
}

/** `POST /messes`: the setup body with a slug. */
export class CreateMessDto extends MessFieldsDto {
  @ApiProperty({
    ...SLUG_DOC,
    example: 'hostel-7',
    description: '2–40 of a-z, 0-9 and -, not starting or ending with -; unique',
  })
  @Matches(SLUG_PATTERN, { message: SLUG_RULE })
  @IsString()
  declare slug: string;
}

export class MessDto {
  @ApiProperty() _id: string;
  @ApiProperty({ example: 'hostel-7' }) slug: string;
  @ApiProperty({ example: 'Hostel 7 Mess' }) messName: string;
  @ApiProperty() description: string;
  @ApiProperty({ example: 'mess@college.edu' }) email: string;
  @ApiProperty({ example: '+918012345678' }) phone: string;
  @ApiProperty({ type: Number, nullable: true }) capacity: number | null;
  @ApiProperty({ description: 'Approved members who belong to it now' }) members: number;
  @ApiProperty({ description: 'false until it is set up' }) configured: boolean;
  @ApiProperty({ type: MessUpiDto, nullable: true }) upi: MessUpiDto | null;
  @ApiProperty() createdAt: Date;
}

export class MessesEnvelopeDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: [MessDto] }) messes: MessDto[];
}

export class MessEnvelopeDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: MessDto }) mess: MessDto;
}
