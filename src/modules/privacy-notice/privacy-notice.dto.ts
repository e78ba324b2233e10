import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsUrl, ValidateNested } from 'class-validator';
import { EmailField, TextField } from '../../common/http/fields';
import type { PrivacyNoticeRow } from './privacy-notice.schema';

export class GrievanceOfficerDto {
  @TextField(1, 100, { example: 'Dr. R. Iyer, Dean of Students' })
  name: string;

  @EmailField({ example: 'grievance@college.edu' })
  email: string;
}

/** `privacyNotice` of `PATCH /auth/admin/config`, and `notice` of `GET /privacy`. */
export class PrivacyNoticeDto {
  @TextField(1, 40, {
    example: '2026-11',
    description: 'Any label; registration then needs `acceptNotice` equal to it',
  })
  version: string;

  @IsUrl({ protocols: ['https', 'http'], require_protocol: true, require_tld: false })
  @TextField(1, 500, {
    example: 'https://college.edu/mess/privacy',
    description: 'Where the notice is published',
  })
  url: string;

  @ApiProperty({ type: GrievanceOfficerDto })
  @ValidateNested()
  @Type(() => GrievanceOfficerDto)
  grievanceOfficer: GrievanceOfficerDto;
}

export class PrivacyNoticeEnvelopeDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: PrivacyNoticeDto, nullable: true, description: 'null: no notice is configured' })
  notice: PrivacyNoticeDto | null;
}

export const toNotice = (row: PrivacyNoticeRow | undefined): PrivacyNoticeDto | null =>
  row
    ? {
        version: row.version,
        url: row.url,
        grievanceOfficer: { name: row.grievanceOfficerName, email: row.grievanceOfficerEmail },
      }
    : null;
