import { Module } from '@nestjs/common';
import { AuditTrailModule } from '../audit-trail';
import { UsersModule } from '../users';
import { AuditController } from './audit.controller';
import { AuditService } from './audit.service';

/** GET /api/audit: the trail that audit-trail keeps, with the actors' names. Writers depend on audit-trail, not this. */
@Module({
  imports: [AuditTrailModule, UsersModule],
  controllers: [AuditController],
  providers: [AuditService],
  // A member's rows of the trail, with the actors' names, for their data export (extension 2.3).
  exports: [AuditService],
})
export class AuditModule {}
