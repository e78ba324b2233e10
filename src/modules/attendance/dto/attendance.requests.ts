import { PageQuery } from '../../../common/http/paging';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsUUID, ValidateNested } from 'class-validator';
import { DateField, MonthField, Optional, TextField } from '../../../common/http/fields';
import { ATTENDANCE_STATUSES, type AttendanceStatus } from '../attendance.schema';

/** The most marks one bulk request may carry. */
export const MAX_BULK_MARKS = 500;

const statusMessage = { message: `status must be one of ${ATTENDANCE_STATUSES.join(', ')}` };
/** `{}` for no example. */
const MealTypeField = (options: { example?: string } = { example: 'Lunch' }) =>
  TextField(1, 30, { ...options, description: 'The name of a configured meal time' });

export class ListAttendanceQuery extends PageQuery(100, 500) {
  @ApiPropertyOptional({
    format: 'uuid',
    description: 'One member (managers, treasurers, admins). Students always get their own marks only.',
  })
  @Optional()
  @IsUUID(undefined, { message: 'userId must be a UUID' })
  userId?: string;

  @DateField({ optional: true, description: 'One calendar date' })
  date?: string;

  @MonthField({
    optional: true,
    description: 'The days of one month (calendar dates of the mess); combines with `date` if both are given',
  })
  month?: string;

  @ApiPropertyOptional({ enum: ATTENDANCE_STATUSES })
  @Optional()
  @IsIn(ATTENDANCE_STATUSES, statusMessage)
  status?: AttendanceStatus;
}

export class MarkAttendanceDto {
  @DateField({ description: 'Calendar date of the meal in the mess time zone' })
  date: string;

  @MealTypeField()
  mealType: string;

  @ApiProperty({ enum: ATTENDANCE_STATUSES, example: 'present' })
  @IsIn(ATTENDANCE_STATUSES, statusMessage)
  status: AttendanceStatus;

  @ApiPropertyOptional({
    format: 'uuid',
    description:
      'Mark for another approved member (manager or admin). Students may only name themselves (else 403).',
  })
  @IsUUID(undefined, { message: 'userId must be a UUID' })
  @Optional() // nearest the property: null is told it must be left out
  userId?: string;
}

export class UpdateAttendanceDto {
  @ApiProperty({ enum: ATTENDANCE_STATUSES, example: 'absent' })
  @IsIn(ATTENDANCE_STATUSES, statusMessage)
  status: AttendanceStatus;
}

export class BulkMarkDto {
  @ApiProperty({ format: 'uuid', example: '0193a5e4-7c1a-7c9e-9d3b-4a1f2e3d4c5b' })
  @IsUUID(undefined, { message: 'userId must be a UUID' })
  userId: string;

  @ApiProperty({ enum: ATTENDANCE_STATUSES, example: 'present' })
  @IsIn(ATTENDANCE_STATUSES, statusMessage)
  status: AttendanceStatus;
}

export class BulkAttendanceDto {
  @DateField({ description: 'Calendar date of the meal in the mess time zone' })
  date: string;

  @MealTypeField()
  mealType: string;

  @ApiProperty({
    type: [BulkMarkDto],
    minItems: 1,
    maxItems: MAX_BULK_MARKS,
    description: `One mark per member (each userId at most once), 1 to ${MAX_BULK_MARKS} of them`,
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BULK_MARKS)
  @ValidateNested({ each: true })
  @Type(() => BulkMarkDto)
  marks: BulkMarkDto[];
}

export class PassQuery {
  // No examples: a fixed date passes one day, and today's Lunch is over after lunch ("Try it out" would be a 400).
  @DateField({
    optional: true,
    example: undefined,
    description: "The meal's date in the mess time zone; default today. A meal that has ended gets 400",
  })
  date?: string;

  @MealTypeField({})
  mealType: string;
}

export class ScanDto {
  @TextField(1, 500, {
    example:
      'p1.WyIwMTkzYTVlNC03YzFhLTdjOWUtOWQzYi00YTFmMmUzZDRjNWIiLCIyMDI1LTAzLTE0IiwiTHVuY2giLDE3NDE5MzQ4MDAsMTc0MTk0MjgwMF0.c2lnbmF0dXJl',
    description: 'The pass as read from the QR code',
  })
  pass: string;
}
