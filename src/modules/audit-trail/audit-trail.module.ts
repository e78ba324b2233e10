import { Module } from '@nestjs/common';
import { AuditTrailRepository } from './audit-trail.repository';
import { AuditTrail } from './audit-trail';

/** The audit trail's owner. Modules that change money or membership import it and record in their own transactions. */
@Module({
  providers: [AuditTrailRepository, AuditTrail],
  exports: [AuditTrail],
})
export class AuditTrailModule {}
