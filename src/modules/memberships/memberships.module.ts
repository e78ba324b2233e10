import { Module } from '@nestjs/common';
import { LeaveModule } from '../leave';
import { UsersModule } from '../users';
import { MembershipsController } from './memberships.controller';
import { MembershipsService } from './memberships.service';

/** Extension 2.2: moving members between messes, one by one and in batches. */
@Module({
  imports: [UsersModule, LeaveModule],
  controllers: [MembershipsController],
  providers: [MembershipsService],
  // The term moves (issue 34) are made as a move by hand is.
  exports: [MembershipsService],
})
export class MembershipsModule {}
