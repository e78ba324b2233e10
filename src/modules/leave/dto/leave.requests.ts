import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsUUID } from 'class-validator';
import { DateField, MonthField, Optional, TextField } from '../../../common/http/fields';
import { PageQuery } from '../../../common/http/paging';
import { LEAVE_STATUSES, type LeaveStatus } from '../../leave-calendar';

export class CreateLeaveDto {
  @DateField({ description: 'First day of the leave (mess time zone)' })
  startDate: string;

  @DateField({ description: 'Last day of the leave; not before startDate' })
  endDate: string;

  @TextField(1, 30, {
    optional: true,
    example: 'Lunch',
    description: "First covered meal on startDate (a configured meal time); default the day's first meal",
  })
  startMealType?: string;

  @TextField(1, 30, {
    optional: true,
    example: 'Dinner',
    description: "Last covered meal on endDate (a configured meal time); default the day's last meal",
  })
  endMealType?: string;

  @TextField(0, 500, { optional: true, multiline: true, example: 'Going home for Diwali' })
  reason?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description:
      'Record a leave for another approved member (manager, admin): exempt from applyBeforeHours and approved at once',
  })
  @IsUUID(undefined, { message: 'userId must be a UUID' })
  @Optional()
  userId?: string;
}

export class RejectLeaveDto {
  @TextField(0, 500, { optional: true, multiline: true, example: 'The mess is short of staff that week' })
  reason?: string;
}

export class ListLeavesQuery extends PageQuery(20, 100) {
  @ApiPropertyOptional({ enum: LEAVE_STATUSES })
  @Optional()
  @IsIn(LEAVE_STATUSES, { message: `status must be one of ${LEAVE_STATUSES.join(', ')}` })
  status?: LeaveStatus;

  @ApiPropertyOptional({
    format: 'uuid',
    description: 'One member (managers, admins); members get their own only',
  })
  @Optional()
  @IsUUID(undefined, { message: 'userId must be a UUID' })
  userId?: string;

  @MonthField({ optional: true, description: 'Leaves with a day in this month' })
  month?: string;

  @DateField({ optional: true, description: 'Leaves that include this day' })
  date?: string;
}
