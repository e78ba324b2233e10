export { LeaveModule } from './leave.module';
export { LeaveDecisionsService } from './leave-decisions.service';
