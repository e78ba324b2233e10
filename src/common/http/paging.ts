import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { Optional } from './fields';

/**
 * `page` and `limit` query fields for a list: `limit` defaults to `defaultLimit` and above `maxLimit` is a 400, not
 * a silent cut. List queries extend `PageQuery(default, max)`.
 */
export function PageQuery(defaultLimit: number, maxLimit: number) {
  class Page {
    @ApiPropertyOptional({ type: 'integer', default: 1, minimum: 1, maximum: 100_000 })
    // class-validator runs the decorator nearest the property first and stops at the first failure, so the
    // integer check sits at the bottom: `?page=abc` is told "must be an integer", not "not greater than".
    @Optional()
    @Type(() => Number)
    @Max(100_000)
    @Min(1)
    @IsInt()
    page: number = 1;

    @ApiPropertyOptional({ type: 'integer', default: defaultLimit, minimum: 1, maximum: maxLimit })
    @Optional()
    @Type(() => Number)
    @Max(maxLimit)
    @Min(1)
    @IsInt()
    limit: number = defaultLimit;
  }
  return Page;
}

export class PaginationDto {
  @ApiProperty({ example: 1 }) page: number;
  @ApiProperty({ example: 10 }) limit: number;
  @ApiProperty({ example: 42, description: 'Matching records on all pages' }) total: number;
}
