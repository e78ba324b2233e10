import { Global, Module } from '@nestjs/common';
import { AuditTrailModule } from '../audit-trail';
import { MessDirectory } from './mess-directory';
import { MessGuard } from './mess.guard';
import { RouteMetadata } from '../../common/http/route-metadata';
import { MessesRepository } from './messes.repository';
import { PastMesses } from './past-messes';

/**
 * The deployment's messes: finding one by id or slug, and deciding each request's mess (MessGuard), which asks
 * PastMesses (the audit trail's moves) whether a member belonged to a mess they name.
 */
@Global()
@Module({
  imports: [AuditTrailModule],
  providers: [MessesRepository, MessDirectory, PastMesses, MessGuard, RouteMetadata],
  // Other modules read and lock messes through MessDirectory; the repository stays this module's.
  exports: [MessDirectory, MessGuard, PastMesses, RouteMetadata],
})
export class MessesModule {}
