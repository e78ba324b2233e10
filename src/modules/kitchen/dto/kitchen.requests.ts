import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsInt,
  IsNumber,
  Max,
  Min,
  Validate,
  type ValidationArguments,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { CheckedBy } from '../../../common/http/field-checks';
import { DateField, MonthField, Optional, TextField } from '../../../common/http/fields';
import { LEFTOVER_GRAMS_MAX, PREPARED_PLATES_MAX, WASTE_NOTE_MAX } from '../kitchen.schema';
import { WasteMealCheck } from '../waste-meal.check';

export class ForecastQuery {
  @DateField({ optional: true, description: 'The first date (default today)' })
  from?: string;

  @DateField({
    optional: true,
    description: 'The last date (default 6 days after from); at most 14 days in all',
  })
  to?: string;
}

export class AccuracyQuery {
  @DateField({ optional: true, description: 'The first past date (default 27 days before to)' })
  from?: string;

  @DateField({
    optional: true,
    description: 'The last past date (default yesterday); at most 92 days in all',
  })
  to?: string;
}

export class WasteMonthQuery {
  @MonthField({ optional: true, description: 'The month (default this month)' })
  month?: string;
}

@ValidatorConstraint({ name: 'wholeGrams' })
class WholeGramsConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value !== 'number' || Math.abs(value * 1000 - Math.round(value * 1000)) < 1e-6;
  }
  defaultMessage(args?: ValidationArguments): string {
    return `${args?.property ?? 'value'} must have at most three decimals (whole grams)`;
  }
}

const LEFTOVER_KG_MAX = LEFTOVER_GRAMS_MAX / 1000;

/** The body of `PUT /kitchen/waste/:date/:mealType`; its path is checked with it (one 400 names both). */
@CheckedBy(WasteMealCheck)
export class RecordWasteDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: PREPARED_PLATES_MAX, example: 420 })
  @Optional()
  @Max(PREPARED_PLATES_MAX, { message: `preparedPlates must be at most ${PREPARED_PLATES_MAX}` })
  @Min(0, { message: 'preparedPlates must be at least 0' })
  @IsInt({ message: 'preparedPlates must be an integer number' })
  preparedPlates?: number;

  @ApiProperty({
    minimum: 0,
    maximum: LEFTOVER_KG_MAX,
    example: 12.35,
    description: 'Kilograms thrown away, at most three decimals',
  })
  @Validate(WholeGramsConstraint)
  @Max(LEFTOVER_KG_MAX, { message: `leftoverKg must be at most ${LEFTOVER_KG_MAX}` })
  @Min(0, { message: 'leftoverKg must be at least 0' })
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'leftoverKg must be a number' })
  leftoverKg: number;

  @TextField(0, WASTE_NOTE_MAX, {
    optional: true,
    multiline: true,
    example: 'Rain: fewer came for dinner',
    description: 'What the kitchen wants to remember of the meal',
  })
  note?: string;
}
