import { Module } from '@nestjs/common';
import { LeaveCalendar } from './leave-calendar';
import { LeaveRepository } from './leave.repository';

/**
 * The read side of leave, for attendance, analytics and notifications. LeaveModule (the rules and routes) builds on
 * attendance, so attendance cannot import it; both share this one.
 */
@Module({
  providers: [LeaveRepository, LeaveCalendar],
  exports: [LeaveRepository, LeaveCalendar],
})
export class LeaveCalendarModule {}
