import { ExtrasMemberData } from './extras-member-data';
import { Module } from '@nestjs/common';
import { AuditTrailModule } from '../audit-trail';
import { MessConfigModule } from '../mess-config';
import { UsersModule } from '../users';
import { ExtrasController } from './extras.controller';
import { ExtrasQueries } from './extras.queries';
import { ExtrasRepository } from './extras.repository';
import { ExtrasService } from './extras.service';

/** Priced extras recorded for members; billing reads their monthly totals through ExtrasQueries. */
@Module({
  imports: [AuditTrailModule, MessConfigModule, UsersModule],
  controllers: [ExtrasController],
  providers: [ExtrasRepository, ExtrasService, ExtrasQueries, ExtrasMemberData],
  exports: [ExtrasQueries, ExtrasMemberData],
})
export class ExtrasModule {}
