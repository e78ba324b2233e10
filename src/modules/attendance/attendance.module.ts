import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { MessConfigModule } from '../mess-config/mess-config.module';
import { UsersModule } from '../users/users.module';
import { LeaveCalendarModule } from '../leave/leave-calendar.module';
import { AttendanceController } from './attendance.controller';
import { AttendanceEvents } from './attendance-events';
import { AttendanceQueries } from './attendance.queries';
import { AttendanceRepository } from './attendance.repository';
import { AttendanceService } from './attendance.service';
import { BulkMarkingService } from './bulk-marking.service';
import { CounterController } from './counter.controller';
import { CounterPasses } from './counter-pass';
import { CounterService } from './counter.service';
import { SlotWriter } from './slot-writer';

@Module({
  imports: [MessConfigModule, UsersModule, LeaveCalendarModule, AuditModule],
  controllers: [AttendanceController, CounterController],
  providers: [
    AttendanceRepository,
    AttendanceService,
    AttendanceQueries,
    AttendanceEvents,
    SlotWriter,
    BulkMarkingService,
    CounterPasses,
    CounterService,
  ],
  exports: [AttendanceQueries, AttendanceService],
})
export class AttendanceModule {}
