import { Module } from '@nestjs/common';
import { AuditTrailModule } from '../audit-trail';
import { MembershipsModule } from '../memberships';
import { MessesModule } from '../messes';
import { UsersModule } from '../users';
import { AllocationService } from './allocation.service';
import { MessWindowsService } from './mess-windows.service';
import { TermsController } from './terms.controller';
import { TermsRepository } from './terms.repository';
import { TermsMemberData } from './terms-member-data';
import { TermsSchedule } from './terms.schedule';
import { WindowFieldsCheck } from './window-fields.check';

/** Extension 2.3: choosing a mess for a term (windows, ranked choices, the lottery and the moves). */
@Module({
  imports: [UsersModule, MessesModule, MembershipsModule, AuditTrailModule],
  controllers: [TermsController],
  providers: [
    TermsRepository,
    MessWindowsService,
    AllocationService,
    TermsSchedule,
    WindowFieldsCheck,
    TermsMemberData,
  ],
  exports: [AllocationService, TermsMemberData],
})
export class TermsModule {}
