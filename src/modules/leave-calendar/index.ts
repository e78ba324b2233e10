export { LeaveCalendarModule } from './leave-calendar.module';
export { LeaveCalendar } from './leave-calendar';
export { LeaveRecords } from './leave-records';
export type { LeaveListFilter, LeaveListRow } from './leave.repository';
export { LEAVE_STATUSES, type LeaveRow, type LeaveStatus, type NewLeaveRow } from './leave.schema';
