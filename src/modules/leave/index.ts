export { LeaveModule } from './leave.module';
export { LeaveDecisionsService } from './leave-decisions.service';
// A member's records for their data export and erasure (extension 2.3).
export { LeaveMemberData } from './leave-member-data';
