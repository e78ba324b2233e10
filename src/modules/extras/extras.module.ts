import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { MessConfigModule } from '../mess-config/mess-config.module';
import { UsersModule } from '../users/users.module';
import { ExtrasController } from './extras.controller';
import { ExtrasQueries } from './extras.queries';
import { ExtrasRepository } from './extras.repository';
import { ExtrasService } from './extras.service';

/** Priced extras recorded for members; billing reads their monthly totals through ExtrasQueries. */
@Module({
  imports: [AuditModule, MessConfigModule, UsersModule],
  controllers: [ExtrasController],
  providers: [ExtrasRepository, ExtrasService, ExtrasQueries],
  exports: [ExtrasQueries],
})
export class ExtrasModule {}
