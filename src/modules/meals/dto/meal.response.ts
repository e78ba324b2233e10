import { ApiProperty } from '@nestjs/swagger';
import type { MealRow, MenuSource } from '../meals.schema';

export class MealCreatorDto {
  @ApiProperty({ example: '0193a5e4-7c1a-7c9e-9d3b-4a1f2e3d4c5b' }) _id: string;
  @ApiProperty({ example: 'Meera Nair' }) fullName: string;
}

export class MealDto {
  @ApiProperty({ example: '0193a5e6-2c3d-7e4f-9a51-6b7c8d9e0f1a' }) _id: string;
  @ApiProperty({ format: 'date', example: '2025-03-14' }) date: string;
  @ApiProperty({ example: 'Lunch' }) mealType: string;
  @ApiProperty({ type: [String], example: ['Rice', 'Dal tadka', 'Aloo gobi', 'Curd'] }) dishes: string[];
  @ApiProperty({ example: 'Sweet on Sundays' }) notes: string;
  @ApiProperty({
    enum: ['manager', 'rotation'],
    description: '`rotation` when published from the weekly menu and not edited since; else `manager`',
  })
  source: MenuSource;
  @ApiProperty({ type: MealCreatorDto, description: 'The manager who published it (the owner)' })
  createdBy: MealCreatorDto;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export const toMealResponse = (row: MealRow, creatorName: string | null): MealDto => ({
  _id: row.id,
  date: row.date,
  mealType: row.mealType,
  dishes: row.dishes,
  notes: row.notes,
  source: row.source,
  createdBy: { _id: row.createdBy, fullName: creatorName ?? '' },
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export class MealEnvelopeDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: MealDto }) meal: MealDto;
}

export class MealListDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({
    type: [MealDto],
    description: 'By date, then by the time of day of the meal (configured meal times)',
  })
  meals: MealDto[];
}

export class MealDeletedDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ example: 'Meal deleted' }) message: string;
}
