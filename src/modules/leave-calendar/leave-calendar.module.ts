import { Module } from '@nestjs/common';
import { LeaveCalendar } from './leave-calendar';
import { LeaveRecords } from './leave-records';
import { LeaveRepository } from './leave.repository';

/**
 * The owner of `leaves`. Attendance, analytics and notifications read the calendar (who is on leave, the leave lock);
 * the leave module (rules and routes), which builds on attendance, writes through LeaveRecords.
 */
@Module({
  providers: [LeaveRepository, LeaveCalendar, LeaveRecords],
  exports: [LeaveCalendar, LeaveRecords],
})
export class LeaveCalendarModule {}
