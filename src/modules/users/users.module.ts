import { EmailCollisionReport } from './email-collisions.report';
import { Module } from '@nestjs/common';
import { AuditTrailModule } from '../audit-trail';
import { PrivacyNoticeModule } from '../privacy-notice';
import { AdminBootstrapService } from './admin-bootstrap.service';
import { CredentialsService } from './credentials.service';
import { MembershipPeriods } from './membership-periods';
import { MessMembersRepository } from './mess-members.repository';
import { ProfilesService } from './profiles.service';
import { UserAdministrationService } from './user-administration.service';
import { RosterController } from './roster.controller';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  imports: [AuditTrailModule, PrivacyNoticeModule],
  controllers: [UsersController, RosterController],
  providers: [
    UsersRepository,
    MessMembersRepository,
    UsersService,
    EmailCollisionReport,
    CredentialsService,
    ProfilesService,
    UserAdministrationService,
    AdminBootstrapService,
    MembershipPeriods,
  ],
  // Auth signs members in and up through CredentialsService; everyone else reads members through UsersService.
  exports: [UsersService, CredentialsService, UserAdministrationService, MembershipPeriods],
})
export class UsersModule {}
