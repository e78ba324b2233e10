import { ApiProperty, OmitType } from '@nestjs/swagger';
import { PaginationDto } from '../../../common/http/paging';
import type { VisibleFeedback } from '../feedback.service';
import type { FeedbackRow } from '../feedback.schema';

export class FeedbackDto {
  @ApiProperty({ example: '0193a5e4-a1b2-7c3d-8e4f-5a6b7c8d9e0f' }) _id: string;
  @ApiProperty({ example: '0193a5e4-7c1a-7c9e-9d3b-4a1f2e3d4c5b' }) userId: string;
  @ApiProperty({ format: 'date', example: '2025-03-14' }) date: string;
  @ApiProperty({ example: 'Lunch' }) mealType: string;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 5, example: 4 }) rating: number;
  @ApiProperty({ example: 'Dal was great, rice a little cold' }) comment: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class FeedbackMemberDto {
  @ApiProperty({ example: '0193a5e4-7c1a-7c9e-9d3b-4a1f2e3d4c5b' }) _id: string;
  @ApiProperty({ example: 'Asha Verma' }) fullName: string;
}

export class FeedbackListItemDto extends OmitType(FeedbackDto, ['userId'] as const) {
  @ApiProperty({
    type: FeedbackMemberDto,
    nullable: true,
    description:
      'The member who gave the feedback. Null for a student reading another member’s feedback (anonymous); ' +
      'managers, treasurers and admins see every member',
  })
  userId: FeedbackMemberDto | null;
}

export const toFeedbackResponse = (row: FeedbackRow): FeedbackDto => ({
  _id: row.id,
  userId: row.userId,
  date: row.date,
  mealType: row.mealType,
  rating: row.rating,
  comment: row.comment,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export const toFeedbackListItem = (row: VisibleFeedback): FeedbackListItemDto => ({
  ...toFeedbackResponse(row),
  userId: row.member && { _id: row.member.id, fullName: row.member.fullName },
});

export class FeedbackEnvelopeDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: FeedbackDto }) feedback: FeedbackDto;
}

export class FeedbackListDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: [FeedbackListItemDto] }) feedback: FeedbackListItemDto[];
  @ApiProperty({ type: PaginationDto }) pagination: PaginationDto;
}
