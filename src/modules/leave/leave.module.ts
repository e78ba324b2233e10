import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { BillingModule } from '../billing/billing.module';
import { AttendanceModule } from '../attendance/attendance.module';
import { MessConfigModule } from '../mess-config/mess-config.module';
import { UsersModule } from '../users/users.module';
import { LeaveCalendarModule } from './leave-calendar.module';
import { LeaveController } from './leave.controller';
import { LeaveDecisionsService } from './leave-decisions.service';
import { LeaveService } from './leave.service';

@Module({
  imports: [LeaveCalendarModule, AttendanceModule, BillingModule, MessConfigModule, UsersModule, AuditModule],
  controllers: [LeaveController],
  providers: [LeaveService, LeaveDecisionsService],
})
export class LeaveModule {}
