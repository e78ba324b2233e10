export { AttendanceModule } from './attendance.module';
export { AttendanceQueries } from './attendance.queries';
export { AttendanceService, type WrittenMark } from './attendance.service';
// A member's records for their data export and erasure (extension 2.3).
export { AttendanceMemberData } from './attendance-member-data';
