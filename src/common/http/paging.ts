import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/**
 * `page` and `limit` query fields for a list: `limit` defaults to `defaultLimit` and above `maxLimit` is a 400, not
 * a silent cut. List queries extend `PageQuery(default, max)`.
 */
export function PageQuery(defaultLimit: number, maxLimit: number) {
  class Page {
    @ApiPropertyOptional({ type: 'integer', default: 1, minimum: 1, maximum: 100_000 })
    @IsOptional()
    @Type(() => Number)
    @IsInt()
    @Min(1)
    @Max(100_000)
    page: number = 1;

    @ApiPropertyOptional({ type: 'integer', default: defaultLimit, minimum: 1, maximum: maxLimit })
    @IsOptional()
    @Type(() => Number)
    @IsInt()
    @Min(1)
    @Max(maxLimit)
    limit: number = defaultLimit;
  }
  return Page;
}

export class PaginationDto {
  @ApiProperty({ example: 1 }) page: number;
  @ApiProperty({ example: 10 }) limit: number;
  @ApiProperty({ example: 42, description: 'Matching records on all pages' }) total: number;
}
