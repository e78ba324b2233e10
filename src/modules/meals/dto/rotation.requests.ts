import { ApiProperty, OmitType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, Max, Min, ValidateNested } from 'class-validator';
import { DateField } from '../../../common/http/fields';
import { ROTATION_WEEKS_MAX } from '../meals.schema';
import { MealBodyDto } from './meal.requests';

export const ROTATION_DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;
/** Every slot of the longest rotation with the most meal times a mess may configure (10). */
export const ROTATION_ENTRIES_MAX = ROTATION_WEEKS_MAX * 7 * 10;

/** The menu of one (week, day, meal type) of the rotation: `mealType`, `dishes` and `notes` as a menu's. */
export class RotationEntryDto extends OmitType(MealBodyDto, ['date'] as const) {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: ROTATION_WEEKS_MAX, example: 1 })
  @Max(ROTATION_WEEKS_MAX)
  @Min(1)
  @IsInt()
  week: number;

  @ApiProperty({ enum: ROTATION_DAYS, example: 'Mon' })
  @IsIn(ROTATION_DAYS, { message: `day must be one of ${ROTATION_DAYS.join(', ')}` })
  day: string;
}

export class SetRotationDto {
  @DateField({ description: 'A Monday (YYYY-MM-DD): the first day of week 1', example: '2025-03-10' })
  startsOn: string;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: ROTATION_WEEKS_MAX, example: 2 })
  @Max(ROTATION_WEEKS_MAX)
  @Min(1)
  @IsInt()
  weeks: number;

  @ApiProperty({
    type: [RotationEntryDto],
    maxItems: ROTATION_ENTRIES_MAX,
    description: 'One per (week, day, mealType); `week` 1 to `weeks`. Slots without an entry stay empty.',
  })
  @ValidateNested({ each: true })
  @Type(() => RotationEntryDto)
  @ArrayMaxSize(ROTATION_ENTRIES_MAX)
  @IsArray()
  entries: RotationEntryDto[];
}
