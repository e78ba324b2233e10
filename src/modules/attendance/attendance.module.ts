import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { MessConfigModule } from '../mess-config/mess-config.module';
import { UsersModule } from '../users/users.module';
import { LeaveCalendarModule } from '../leave/leave-calendar.module';
import { AttendanceController } from './attendance.controller';
import { AttendanceQueries } from './attendance.queries';
import { AttendanceRepository } from './attendance.repository';
import { AttendanceService } from './attendance.service';
import { CounterPasses } from './counter-pass';

@Module({
  imports: [MessConfigModule, UsersModule, LeaveCalendarModule, AuditModule],
  controllers: [AttendanceController],
  providers: [AttendanceRepository, AttendanceService, AttendanceQueries, CounterPasses],
  exports: [AttendanceQueries, AttendanceService],
})
export class AttendanceModule {}
