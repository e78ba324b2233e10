import { PageQuery } from '../../../common/http/paging';
import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsInt, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';
import { DateField, NoControlCharacters, Optional, TextField } from '../../../common/http/fields';
import { MAX_COMMENT_LENGTH } from '../feedback.schema';

const ratingMessage = { message: 'rating must be a whole number from 1 to 5' };

/** A JSON integer 1..5: `0`, `6`, `2.5` and the string `"5"` are refused. Optional means absent, never null. */
const RatingField = (optional = false) =>
  applyDecorators(
    (optional ? ApiPropertyOptional : ApiProperty)({ type: 'integer', minimum: 1, maximum: 5, example: 4 }),
    ...(optional ? [Optional()] : []),
    IsInt(ratingMessage),
    Min(1, ratingMessage),
    Max(5, ratingMessage),
  );

/** Trimmed; at most MAX_COMMENT_LENGTH characters; may be empty; absent means "no change" or "no comment". */
const CommentField = () =>
  applyDecorators(
    ApiPropertyOptional({
      type: String,
      maxLength: MAX_COMMENT_LENGTH,
      example: 'Dal was great, rice a little cold',
    }),
    Optional(),
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value)),
    IsString({ message: 'comment must be a string' }),
    NoControlCharacters(true),
    MaxLength(MAX_COMMENT_LENGTH, {
      message: `comment must be at most ${MAX_COMMENT_LENGTH} characters`,
    }),
  );

export class ListFeedbackQuery extends PageQuery(100, 500) {
  @TextField(1, 30, { optional: true, example: 'Lunch' })
  mealType?: string;

  @DateField({ optional: true })
  date?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 5 })
  @Optional()
  @Type(() => Number)
  @IsInt(ratingMessage)
  @Min(1, ratingMessage)
  @Max(5, ratingMessage)
  rating?: number;

  @ApiPropertyOptional({
    format: 'uuid',
    description: "One member's feedback (a student: only their own id, else 403)",
  })
  @Optional()
  @IsUUID(undefined, { message: 'userId must be a UUID' })
  userId?: string;
}

export class SubmitFeedbackDto {
  @DateField({ description: 'Calendar date of the meal; today (mess time zone) or earlier' })
  date: string;

  @TextField(1, 30, { example: 'Lunch', description: 'The name of a configured meal time' })
  mealType: string;

  @RatingField()
  rating: number;

  @CommentField()
  comment?: string;
}

export class UpdateFeedbackDto {
  @RatingField(true)
  rating?: number;

  @CommentField()
  comment?: string;
}
