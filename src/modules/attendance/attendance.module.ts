import { Module } from '@nestjs/common';
import { AuditTrailModule } from '../audit-trail';
import { MessConfigModule } from '../mess-config';
import { UsersModule } from '../users';
import { LeaveCalendarModule } from '../leave-calendar';
import { AttendanceController } from './attendance.controller';
import { AttendanceQueries } from './attendance.queries';
import { AttendanceRepository } from './attendance.repository';
import { AttendanceService } from './attendance.service';
import { CounterPasses } from './counter-pass';

@Module({
  imports: [MessConfigModule, UsersModule, LeaveCalendarModule, AuditTrailModule],
  controllers: [AttendanceController],
  providers: [AttendanceRepository, AttendanceService, AttendanceQueries, CounterPasses],
  exports: [AttendanceQueries, AttendanceService],
})
export class AttendanceModule {}
