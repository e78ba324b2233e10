import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsInt, IsString, Length, Max, Min } from 'class-validator';
import { DateField, NoControlCharacters, Optional, TextField } from '../../../common/http/fields';
import { DISH_NAME_MAX, MEAL_DISHES_MAX, MEAL_NOTES_MAX, MEAL_TYPE_MAX } from '../meals.schema';

const trimEach = ({ value }: { value: unknown }) =>
  Array.isArray(value) ? value.map((v: unknown) => (typeof v === 'string' ? v.trim() : v)) : value;

/** The fields of a menu; PUT replaces all of them, so both verbs share this shape. */
export class MealBodyDto {
  @DateField({ description: 'The day this menu is served (YYYY-MM-DD, a real date)' })
  date: string;

  @TextField(1, MEAL_TYPE_MAX, {
    description: 'One of the configured meal times (GET /auth/admin/config), exact spelling',
    example: 'Lunch',
  })
  mealType: string;

  @ApiProperty({
    type: [String],
    minItems: 1,
    maxItems: MEAL_DISHES_MAX,
    description: `1 to ${MEAL_DISHES_MAX} dishes, each 1 to ${DISH_NAME_MAX} characters after trimming`,
    example: ['Rice', 'Dal tadka', 'Aloo gobi', 'Curd'],
  })
  @Transform(trimEach)
  // class-validator runs the decorators nearest the property first; with stopAtFirstError the first failure is
  // the one reported, so the most basic check sits at the bottom.
  @Length(1, DISH_NAME_MAX, { each: true, message: `each dish must be 1 to ${DISH_NAME_MAX} characters` })
  @NoControlCharacters(false, { each: true, message: 'each dish must be free of control characters' })
  @IsString({ each: true, message: 'each dish must be a string' })
  @ArrayMaxSize(MEAL_DISHES_MAX, { message: `dishes must name at most ${MEAL_DISHES_MAX} dishes` })
  @ArrayMinSize(1, { message: 'dishes must name at least one dish' })
  @IsArray({ message: 'dishes must be an array of strings' })
  dishes: string[];

  @TextField(0, MEAL_NOTES_MAX, {
    optional: true,
    multiline: true,
    description: 'Free text; an empty string when omitted',
    example: 'Sweet on Sundays',
  })
  notes?: string;
}

export class CreateMealDto extends MealBodyDto {}

/** A full replacement: the same fields and rules as POST; an omitted `notes` becomes empty. */
export class UpdateMealDto extends MealBodyDto {}

export class ListMealsQuery {
  // No example: "Try it out" would fill a past day and show an empty list; left empty it lists every menu.
  @DateField({
    optional: true,
    example: undefined,
    description: 'One day (YYYY-MM-DD). Not together with `week` or `from`/`to`.',
  })
  date?: string;

  // No examples on the range either: filled in beside `date` they would be a 400.
  @DateField({
    optional: true,
    example: undefined,
    description:
      'The first day of a range (YYYY-MM-DD), with `to`; at most 31 days, both included. Not together with `date` or `week`.',
  })
  from?: string;

  @DateField({
    optional: true,
    example: undefined,
    description: 'The last day of the range that `from` starts (YYYY-MM-DD), included.',
  })
  to?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 53,
    // No `example`: the docs' "Try it out" fills every example at once, and `date` with `week` is a 400.
    description:
      'ISO-8601 week number (Monday to Sunday) of `year`; 53 only in years that have it. Not together with `date` or `from`/`to`. For example 11.',
  })
  @Optional()
  @Type(() => Number)
  // Nearest the property runs first: a non-integer is told so, not that it is out of range.
  @Max(53)
  @Min(1)
  @IsInt()
  week?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1900,
    maximum: 2999,
    description:
      "The ISO week-numbering year of `week`; only with `week`. Defaults to the year of today's week in the mess time zone. For example 2025.",
  })
  @Optional()
  @Type(() => Number)
  @Max(2999)
  @Min(1900)
  @IsInt()
  year?: number;

  @TextField(1, MEAL_TYPE_MAX, {
    optional: true,
    description:
      'Exact meal type. Not checked against the configuration, so menus of a meal time since removed stay findable.',
    example: 'Lunch',
  })
  mealType?: string;
}
