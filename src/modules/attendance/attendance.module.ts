import { AttendanceMemberData } from './attendance-member-data';
import { Module } from '@nestjs/common';
import { AuditTrailModule } from '../audit-trail';
import { MessConfigModule } from '../mess-config';
import { UsersModule } from '../users';
import { LeaveCalendarModule } from '../leave-calendar';
import { AttendanceController } from './attendance.controller';
import { AttendanceEvents } from './attendance-events';
import { AttendanceQueries } from './attendance.queries';
import { AttendanceAggregates } from './attendance-aggregates.repository';
import { AttendanceRepository } from './attendance.repository';
import { AttendanceService } from './attendance.service';
import { BulkMarkingService } from './bulk-marking.service';
import { CounterController } from './counter.controller';
import { CounterPasses } from './counter-pass';
import { CounterService } from './counter.service';
import { SlotWriter } from './slot-writer';

@Module({
  imports: [MessConfigModule, UsersModule, LeaveCalendarModule, AuditTrailModule],
  controllers: [AttendanceController, CounterController],
  providers: [
    AttendanceMemberData,
    AttendanceRepository,
    AttendanceAggregates,
    AttendanceService,
    AttendanceQueries,
    AttendanceEvents,
    SlotWriter,
    BulkMarkingService,
    CounterPasses,
    CounterService,
  ],
  exports: [AttendanceQueries, AttendanceService, AttendanceMemberData],
})
export class AttendanceModule {}
