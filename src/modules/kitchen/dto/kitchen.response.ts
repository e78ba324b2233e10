import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import type { MealForecast } from '../forecast-model';
import type { AccuracyDay } from '../forecast.service';
import type { WasteRow } from '../kitchen.schema';

export class DeclaredDto {
  @ApiProperty({
    example: 42,
    description: 'Members who marked themselves (or were marked) present for the meal',
  })
  present: number;
  @ApiProperty({ example: 7, description: 'Members marked absent for the meal' }) absent: number;
}

export class ForecastDto {
  @ApiProperty({ format: 'date', example: '2025-03-14' }) date: string;
  @ApiProperty({ example: 'Lunch' }) mealType: string;
  @ApiProperty({ example: 312, description: 'The plates to expect' }) expected: number;
  @ApiProperty({ example: 296, description: 'The 80 % interval: 1 meal in 10 comes below low' }) low: number;
  @ApiProperty({ example: 329, description: '… and 1 in 10 above high' }) high: number;
  @ApiProperty({ example: 420, description: "The mess's approved dining members as they stand" })
  members: number;
  @ApiProperty({ example: 12, description: 'Of them, on approved leave for this meal' }) onLeave: number;
  @ApiProperty({ type: DeclaredDto, description: 'Marks already made for the meal (today and later only)' })
  declared: DeclaredDto;
  @ApiProperty({
    example:
      "112 days of attendance (2024-11-22 to 2025-03-13), approved leave, the menu's dishes and the last 14 days' level.",
  })
  basis: string;
}

export const toForecastResponse = (f: MealForecast): ForecastDto => ({
  date: f.date,
  mealType: f.mealType,
  expected: f.expected,
  low: f.low,
  high: f.high,
  members: f.members,
  onLeave: f.onLeave,
  declared: { ...f.declared },
  basis: f.basis,
});

export class ForecastListDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: [ForecastDto], description: 'By date, then meal time' }) forecasts: ForecastDto[];
}

export class AccuracyDayDto {
  @ApiProperty({ format: 'date', example: '2025-03-14' }) date: string;
  @ApiProperty({ example: 'Lunch' }) mealType: string;
  @ApiProperty({
    example: 312,
    description:
      "What the service said the evening before: the last forecast it answered before the meal's day began (the " +
      "forecast route's, or the hourly one of tomorrow's), else what it would have said, recomputed from what was " +
      'known before that date',
  })
  forecast: number;
  @ApiProperty({ example: 305, description: 'Present marks' }) actual: number;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2025-03-13T15:30:00.000Z',
    description: 'When that forecast was answered; null when none was before the day began (recomputed)',
  })
  madeAt: string | null;
}

export const toAccuracyDayResponse = (day: AccuracyDay): AccuracyDayDto => ({
  date: day.date,
  mealType: day.mealType,
  forecast: day.forecast,
  actual: day.actual,
  madeAt: day.madeAt?.toISOString() ?? null,
});

export class BaselineDto {
  @ApiProperty({ example: 'same meal last week' }) method: string;
  @ApiProperty({ type: Number, nullable: true, example: 0.1184 }) wape: number | null;
}

export class AccuracySummaryDto {
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 0.0612,
    description: 'Σ|forecast − actual| ÷ Σ actual',
  })
  wape: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 0.0081,
    description: 'Σ(forecast − actual) ÷ Σ actual',
  })
  bias: number | null;
  @ApiProperty({ example: 84, description: 'Meals with a menu in the range (the rows of days)' })
  meals: number;
  @ApiProperty({ type: BaselineDto }) baseline: BaselineDto;
}

export class AccuracyDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: [AccuracyDayDto], description: 'Each meal with a menu, by date then meal time' })
  days: AccuracyDayDto[];
  @ApiProperty({ type: AccuracySummaryDto }) summary: AccuracySummaryDto;
}

export class WasteRecorderDto {
  @ApiProperty({ example: '0193a5e4-7c1a-7c9e-9d3b-4a1f2e3d4c5b' }) _id: string;
  @ApiProperty({ example: 'Meera Manager' }) fullName: string;
}

export class WasteDto {
  @ApiProperty({ example: '0193a5e6-2c3d-7e4f-9a51-6b7c8d9e0f1a' }) _id: string;
  @ApiProperty({ format: 'date', example: '2025-03-14' }) date: string;
  @ApiProperty({ example: 'Lunch' }) mealType: string;
  @ApiProperty({ type: Number, nullable: true, example: 420 }) preparedPlates: number | null;
  @ApiProperty({ example: 12.35 }) leftoverKg: number;
  @ApiProperty({ example: 'Rain: fewer came for dinner' }) note: string;
  @ApiProperty({ type: WasteRecorderDto }) recordedBy: WasteRecorderDto;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export const toWasteResponse = (row: WasteRow, names: ReadonlyMap<string, string>): WasteDto => ({
  _id: row.id,
  date: row.date,
  mealType: row.mealType,
  preparedPlates: row.preparedPlates,
  leftoverKg: row.leftoverGrams / 1000,
  note: row.note,
  recordedBy: { _id: row.recordedBy, fullName: names.get(row.recordedBy) ?? '' },
  updatedAt: row.updatedAt.toISOString(),
});

export class WasteEnvelopeDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: WasteDto }) waste: WasteDto;
}

export class WasteFiguresDto {
  @ApiProperty({ example: 48.7 }) leftoverKg: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 41,
    description:
      'Leftover grams ÷ present marks of the meals with a record, to the gram (null: no one present)',
  })
  perDinerGrams: number | null;
}

@ApiExtraModels(WasteFiguresDto)
export class WasteSummaryDto extends WasteFiguresDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(WasteFiguresDto) },
    example: { Lunch: { leftoverKg: 30.2, perDinerGrams: 44 } },
  })
  byMealType: Record<string, WasteFiguresDto>;
}

export class WasteMonthDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ example: '2025-03' }) month: string;
  @ApiProperty({ type: [WasteDto], description: 'By date, then meal type' }) entries: WasteDto[];
  @ApiProperty({ type: WasteSummaryDto }) summary: WasteSummaryDto;
}
