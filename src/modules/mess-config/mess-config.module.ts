import { Module } from '@nestjs/common';
import { AuditTrailModule } from '../audit-trail';
import { PrivacyNoticeModule } from '../privacy-notice';
import { MessConfigController } from './mess-config.controller';
import { MessesController } from './messes.controller';
import { MessConfigRepository } from './mess-config.repository';
import { MessConfigService } from './mess-config.service';
import { ConfiguredExpenseCategory } from './expense-category.check';
import { MessCatalogue } from './mess-catalogue.service';
import { MessFieldsCheck, MessFieldsPatchCheck } from './mess-fields.check';

@Module({
  imports: [AuditTrailModule, PrivacyNoticeModule],
  controllers: [MessConfigController, MessesController],
  providers: [
    MessConfigRepository,
    MessConfigService,
    MessCatalogue,
    ConfiguredExpenseCategory,
    MessFieldsCheck,
    MessFieldsPatchCheck,
  ],
  exports: [MessConfigService, ConfiguredExpenseCategory],
})
export class MessConfigModule {}
