export { LeaveModule } from './leave.module';
