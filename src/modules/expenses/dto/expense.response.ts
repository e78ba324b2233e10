import { PaginationDto } from '../../../common/http/paging';
import { ApiProperty } from '@nestjs/swagger';
import { toRupees } from '../../../common/money/money';
import type { ExpenseRow } from '../expenses.schema';

export class ExpenseRecorderDto {
  @ApiProperty({ example: '0193a5e4-7c1a-7c9e-9d3b-4a1f2e3d4c5b' }) _id: string;
  @ApiProperty({ example: 'Ravi Kumar' }) fullName: string;
}

export class ExpenseDto {
  @ApiProperty({ example: '0193a5e5-1b2c-7d3e-8f40-5a6b7c8d9e0f' }) _id: string;
  @ApiProperty({ example: 'Vegetables' }) category: string;
  @ApiProperty({ description: 'Rupees, exact to the paisa', example: 1250.5 }) amount: number;
  @ApiProperty({ example: 'Onions and tomatoes, weekly market' }) description: string;
  @ApiProperty({ format: 'date', example: '2025-03-14' }) date: string;
  @ApiProperty({ type: ExpenseRecorderDto, description: 'The member who recorded it (the owner)' })
  recordedBy: ExpenseRecorderDto;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export const toExpenseResponse = (row: ExpenseRow, recorderName: string | null): ExpenseDto => ({
  _id: row.id,
  category: row.category,
  amount: toRupees(row.amountPaise),
  description: row.description,
  date: row.date,
  recordedBy: { _id: row.recordedBy, fullName: recorderName ?? '' },
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export class ExpenseEnvelopeDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: ExpenseDto }) expense: ExpenseDto;
}

export class ExpenseListDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: [ExpenseDto], description: 'Newest first: by date, then by when it was recorded' })
  expenses: ExpenseDto[];
  @ApiProperty({ type: PaginationDto }) pagination: PaginationDto;
  @ApiProperty({
    description: 'Exact sum in rupees of every expense matching the filters (all pages, not only this one)',
    example: 18250.75,
  })
  totalAmount: number;
}

export class ExpenseDeletedDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ example: 'Expense deleted' }) message: string;
}
