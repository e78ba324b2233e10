import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts';
import { AttendanceModule } from '../attendance';
import { AuditModule } from '../audit';
import { AuditTrailModule } from '../audit-trail';
import { BillingModule } from '../billing';
import { ExtrasModule } from '../extras';
import { FeedbackModule } from '../feedback';
import { LeaveModule } from '../leave';
import { NotificationsModule } from '../notifications';
import { UsersModule } from '../users';
import { ErasureRequestsRepository } from './erasure-requests.repository';
import { ErasureService } from './erasure.service';
import { MemberDataExport } from './member-data-export';
import { PersonalTextRepository } from './personal-text.repository';
import { PrivacyController } from './privacy.controller';
import { TermsModule } from '../terms';

/**
 * A member's data (extension 2.3): the export through every module's own reader, erasure requests, and erasure
 * through every module's own eraser in one transaction (decision 0010). Nothing depends on it.
 */
@Module({
  imports: [
    AccountsModule,
    AttendanceModule,
    AuditModule,
    AuditTrailModule,
    BillingModule,
    ExtrasModule,
    FeedbackModule,
    LeaveModule,
    NotificationsModule,
    TermsModule,
    UsersModule,
  ],
  controllers: [PrivacyController],
  providers: [ErasureRequestsRepository, ErasureService, MemberDataExport, PersonalTextRepository],
})
export class PrivacyModule {}
