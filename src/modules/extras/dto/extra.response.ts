import { ApiProperty } from '@nestjs/swagger';
import { PaginationDto } from '../../../common/http/paging';
import { toRupees } from '../../../common/money/money';
import type { ExtraRow } from '../extras.schema';

export class ExtraMemberDto {
  @ApiProperty({ example: '0193a5e4-7c1a-7c9e-9d3b-4a1f2e3d4c5b' }) _id: string;
  @ApiProperty({ example: 'Asha Verma' }) fullName: string;
}

export class ExtraDto {
  @ApiProperty({ example: '0193a5e6-2c3d-7e4f-9a51-6b7c8d9e0f1a' }) _id: string;
  @ApiProperty({ type: ExtraMemberDto, description: 'The member charged' }) userId: ExtraMemberDto;
  @ApiProperty({ format: 'date', example: '2025-03-14' }) date: string;
  @ApiProperty({ type: String, nullable: true, example: 'Dinner' }) mealType: string | null;
  @ApiProperty({ example: 'Egg', description: "The catalogue's name of the item" }) item: string;
  @ApiProperty({ example: 12.5, description: 'Rupees: the catalogue price when recorded' }) unitPrice: number;
  @ApiProperty({ example: 2 }) quantity: number;
  @ApiProperty({ example: 25, description: 'unitPrice × quantity, rupees' }) amount: number;
  @ApiProperty({ type: ExtraMemberDto, description: 'The manager or admin who recorded it' })
  recordedBy: ExtraMemberDto;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export const toExtraResponse = (row: ExtraRow, names: ReadonlyMap<string, string>): ExtraDto => ({
  _id: row.id,
  userId: { _id: row.userId, fullName: names.get(row.userId) ?? '' },
  date: row.date,
  mealType: row.mealType,
  item: row.item,
  unitPrice: toRupees(row.unitPricePaise),
  quantity: row.quantity,
  amount: toRupees(row.amountPaise),
  recordedBy: { _id: row.recordedBy, fullName: names.get(row.recordedBy) ?? '' },
  createdAt: row.createdAt.toISOString(),
});

export class ExtraEnvelopeDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: ExtraDto }) extra: ExtraDto;
}

export class ExtraListDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: [ExtraDto], description: 'Newest first: by date, then by when recorded' })
  extras: ExtraDto[];
  @ApiProperty({
    example: 37.5,
    description: 'Exact sum in rupees of every extra matching the filters (all pages, not only this one)',
  })
  totalAmount: number;
  @ApiProperty({ type: PaginationDto }) pagination: PaginationDto;
}

export class ExtraDeletedDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ example: 'Extra deleted' }) message: string;
}
