import { Module } from '@nestjs/common';
import { AuditTrailModule } from '../audit-trail';
import { MessConfigController } from './mess-config.controller';
import { MessesController } from './messes.controller';
import { MessConfigRepository } from './mess-config.repository';
import { MessConfigService } from './mess-config.service';
import { ConfiguredExpenseCategory } from './expense-category.check';

@Module({
  imports: [AuditTrailModule],
  controllers: [MessConfigController, MessesController],
  providers: [MessConfigRepository, MessConfigService, ConfiguredExpenseCategory],
  exports: [MessConfigService, ConfiguredExpenseCategory],
})
export class MessConfigModule {}
