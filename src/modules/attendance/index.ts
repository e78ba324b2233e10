export { AttendanceModule } from './attendance.module';
export { AttendanceQueries } from './attendance.queries';
export { AttendanceService, type WrittenMark } from './attendance.service';
