import { LeaveMemberData } from './leave-member-data';
import { Module } from '@nestjs/common';
import { AuditTrailModule } from '../audit-trail';
import { BillingModule } from '../billing';
import { AttendanceModule } from '../attendance';
import { MessConfigModule } from '../mess-config';
import { UsersModule } from '../users';
import { LeaveCalendarModule } from '../leave-calendar';
import { LeaveController } from './leave.controller';
import { LeaveDecisionsService } from './leave-decisions.service';
import { LeaveService } from './leave.service';

@Module({
  imports: [
    LeaveCalendarModule,
    AttendanceModule,
    BillingModule,
    MessConfigModule,
    UsersModule,
    AuditTrailModule,
  ],
  controllers: [LeaveController],
  providers: [LeaveService, LeaveDecisionsService, LeaveMemberData],
  exports: [LeaveDecisionsService, LeaveMemberData],
})
export class LeaveModule {}
