import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsUUID, Max, Min } from 'class-validator';
import { DateField, MonthField, Optional, TextField } from '../../../common/http/fields';
import { PageQuery } from '../../../common/http/paging';
import { EXTRA_ITEM_NAME_MAX } from '../../mess-config';
import { EXTRA_QUANTITY_MAX } from '../extras.schema';

export class RecordExtraDto {
  @ApiProperty({ format: 'uuid', description: 'The approved member who took the item' })
  @IsUUID(undefined, { message: 'userId must be a UUID' })
  userId: string;

  @DateField({ description: 'The day the item was taken (its month is the bill it goes on)' })
  date: string;

  @TextField(1, EXTRA_ITEM_NAME_MAX, {
    example: 'Egg',
    description:
      "One of the configured extraItems, matched ignoring case; stored in the catalogue's spelling",
  })
  item: string;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: EXTRA_QUANTITY_MAX, example: 2 })
  @Max(EXTRA_QUANTITY_MAX, { message: `quantity must be at most ${EXTRA_QUANTITY_MAX}` })
  @Min(1, { message: 'quantity must be at least 1' })
  @IsInt({ message: 'quantity must be an integer number' })
  quantity: number;

  @TextField(1, 30, {
    optional: true,
    example: 'Dinner',
    description: 'The meal it was taken with (a configured meal time); left out: none',
  })
  mealType?: string;
}

export class ListExtrasQuery extends PageQuery(20, 100) {
  @ApiPropertyOptional({
    format: 'uuid',
    description: 'One member (manager, treasurer, admin); a student always gets their own',
  })
  @Optional()
  @IsUUID(undefined, { message: 'userId must be a UUID' })
  userId?: string;

  @MonthField({ optional: true, description: 'Extras dated in this month' })
  month?: string;

  @DateField({ optional: true, description: 'Extras dated this day' })
  date?: string;
}
