import { ApiProperty } from '@nestjs/swagger';
import type { MealRotationRow } from '../meals.schema';
import { MealCreatorDto } from './meal.response';
import { ROTATION_DAYS } from './rotation.requests';

export class RotationEntryResponseDto {
  @ApiProperty({ example: 1 }) week: number;
  @ApiProperty({ enum: ROTATION_DAYS, example: 'Mon' }) day: string;
  @ApiProperty({ example: 'Lunch' }) mealType: string;
  @ApiProperty({ type: [String], example: ['Rice', 'Dal tadka', 'Aloo gobi', 'Curd'] }) dishes: string[];
  @ApiProperty({ example: '' }) notes: string;
}

export class RotationDto {
  @ApiProperty({ format: 'date', example: '2025-03-10' }) startsOn: string;
  @ApiProperty({ example: 2 }) weeks: number;
  @ApiProperty({ type: [RotationEntryResponseDto], description: 'By week, day, then meal type as given' })
  entries: RotationEntryResponseDto[];
  @ApiProperty({ type: MealCreatorDto, description: 'The manager who set it last' })
  updatedBy: MealCreatorDto;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export const toRotationResponse = (row: MealRotationRow, updaterName: string | null): RotationDto => ({
  startsOn: row.startsOn,
  weeks: row.weeks,
  entries: row.entries,
  updatedBy: { _id: row.updatedBy, fullName: updaterName ?? '' },
  updatedAt: row.updatedAt.toISOString(),
});

export class RotationEnvelopeDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: RotationDto, nullable: true, description: 'null when the mess has no rotation' })
  rotation: RotationDto | null;
}

export class RotationDeletedDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ example: 'Rotation deleted' }) message: string;
}
