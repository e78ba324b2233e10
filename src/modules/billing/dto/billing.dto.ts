import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { MonthField, Optional } from '../../../common/http/fields';
import { PageQuery, PaginationDto } from '../../../common/http/paging';
import { CHARGE_METHODS as SHARE_METHODS } from '../../mess-config';
import type { ShareMethod } from '../cost-shares';

export class SharesQuery {
  @MonthField({ optional: true, description: 'Default: this month (mess time zone)' })
  month?: string;

  @ApiPropertyOptional({
    enum: SHARE_METHODS,
    description: "Default: the mess's chargeMethod (GET /auth/admin/config), what a close charges",
  })
  @IsIn(SHARE_METHODS, { message: `method must be one of ${SHARE_METHODS.join(', ')}` })
  @Optional()
  method?: ShareMethod;
}

class MemberRefDto {
  @ApiProperty() _id: string;
  @ApiProperty() fullName: string;
}

export class MemberShareDto {
  @ApiProperty({
    type: MemberRefDto,
    description: 'The member, nested as the contract nests people in lists: the same under every method',
  })
  userId: MemberRefDto;
  @ApiProperty({ description: "The member's name again (`userId.fullName`), kept for existing clients" })
  fullName: string;
  @ApiProperty({ description: 'Meals marked present in the month' }) meals: number;
  @ApiProperty({ description: 'Rupees, to the paisa; 0 for a member with extras and no meals' })
  share: number;
  @ApiProperty({ description: "The member's extras of the month, rupees (priced when recorded)" })
  extras: number;
  @ApiProperty({ description: 'share + extras, rupees: what a close charges the member under this method' })
  total: number;
  @ApiPropertyOptional({ description: 'Daily rate only: days on the rolls in the month' }) days?: number;
  @ApiPropertyOptional({
    description: 'Daily rate only: full days of approved leave in the month, on the rolls',
  })
  leaveDays?: number;
  @ApiPropertyOptional({
    description: 'Daily rate only: of those, the days rebated after the band and the cap',
  })
  rebatedDays?: number;
  @ApiPropertyOptional({ description: 'Daily rate only: rupees, Σ over the leaves of each rounded rebate' })
  rebate?: number;
}

export class BillDto {
  @ApiProperty({ example: '2025-03' }) month: string;
  @ApiProperty({ enum: SHARE_METHODS }) method: ShareMethod;
  @ApiPropertyOptional({ description: 'Daily rate only: rupees a day' }) dailyRate?: number;
  @ApiPropertyOptional({
    description:
      'Daily rate only: Σ share − totalExpenses, rupees (negative: a deficit); extras are left out of it',
  })
  surplus?: number;
  @ApiProperty({ description: 'Rupees' }) totalExpenses: number;
  @ApiProperty({ description: 'Members with at least one meal in the month' }) activeMembers: number;
  @ApiProperty() totalMeals: number;
  @ApiProperty({ description: 'Sum of the shares, rupees' }) allocated: number;
  @ApiProperty({
    description: 'totalExpenses − allocated, rupees (the spec method leaves most of the month here)',
  })
  unallocated: number;
  @ApiProperty({ description: "Sum of the members' extras, rupees" }) totalExtras: number;
  @ApiProperty({ description: "allocated + totalExtras, rupees: the sum of every member's total" })
  totalBilled: number;
  @ApiProperty({ description: 'true once a treasurer or admin closed the month: the bill is frozen' })
  closed: boolean;
  @ApiProperty({
    format: 'date-time',
    description: 'When the bill was computed from the month\'s kept figures (or, for a closed month, frozen)',
  })
  computedAt: string;
  @ApiProperty({
    type: [MemberShareDto],
    description:
      'Members with meals (most meals first), then members with extras and no meals; members who do not dine ' +
      'are never on the bill',
  })
  shares: MemberShareDto[];
}

export class BillResponse extends BillDto {
  @ApiProperty({ example: true }) success: true;
}

export class MyShareResponse {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ example: '2025-03' }) month: string;
  @ApiProperty({ enum: SHARE_METHODS }) method: ShareMethod;
  @ApiProperty() closed: boolean;
  @ApiProperty({ description: 'Meals marked present' }) meals: number;
  @ApiProperty({ description: 'Rupees; 0 when the member ate no meal' }) share: number;
  @ApiProperty({ description: "The member's extras of the month, rupees" }) extras: number;
  @ApiProperty({ description: 'share + extras, rupees' }) total: number;
  @ApiPropertyOptional({ description: 'Daily rate only: days on the rolls' }) days?: number;
  @ApiPropertyOptional({ description: 'Daily rate only' }) leaveDays?: number;
  @ApiPropertyOptional({ description: 'Daily rate only' }) rebatedDays?: number;
  @ApiPropertyOptional({ description: 'Daily rate only: rupees a day' }) dailyRate?: number;
  @ApiPropertyOptional({ description: 'Daily rate only: rupees' }) rebate?: number;
  @ApiProperty() totalExpenses: number;
  @ApiProperty() activeMembers: number;
  @ApiProperty() totalMeals: number;
}

class CloseEventDto {
  @ApiProperty({ enum: ['close', 'reopen'] }) action: string;
  @ApiProperty({ format: 'date-time' }) at: string;
  @ApiProperty({ nullable: true, type: String }) by: string | null;
  @ApiProperty({ nullable: true, type: String }) byName: string | null;
}

export class MonthStatusResponse {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ example: '2025-03' }) month: string;
  @ApiProperty() closed: boolean;
  @ApiProperty({ type: [CloseEventDto] }) history: CloseEventDto[];
}

export class MonthsQuery extends PageQuery(12, 100) {}

class MonthStateDto {
  @ApiProperty({ example: '2025-03' }) month: string;
  @ApiProperty() closed: boolean;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) closedAt: string | null;
  @ApiProperty({ type: MemberRefDto, nullable: true, description: 'Who closed it; null while open' })
  closedBy: MemberRefDto | null;
}

export class MonthsResponse {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: [MonthStateDto] }) months: MonthStateDto[];
  @ApiProperty({ type: PaginationDto }) pagination: PaginationDto;
}
