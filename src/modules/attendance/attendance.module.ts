import { Module } from '@nestjs/common';
import { MessConfigModule } from '../mess-config/mess-config.module';
import { UsersModule } from '../users/users.module';
import { AttendanceController } from './attendance.controller';
import { AttendanceQueries } from './attendance.queries';
import { AttendanceRepository } from './attendance.repository';
import { AttendanceService } from './attendance.service';

@Module({
  imports: [MessConfigModule, UsersModule],
  controllers: [AttendanceController],
  providers: [AttendanceRepository, AttendanceService, AttendanceQueries],
  exports: [AttendanceQueries],
})
export class AttendanceModule {}
