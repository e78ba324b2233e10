import { Module } from '@nestjs/common';
import { AuditTrailModule } from '../audit-trail';
import { MessConfigController } from './mess-config.controller';
import { MessConfigRepository } from './mess-config.repository';
import { MessConfigService } from './mess-config.service';

@Module({
  imports: [AuditTrailModule],
  controllers: [MessConfigController],
  providers: [MessConfigRepository, MessConfigService],
  exports: [MessConfigService],
})
export class MessConfigModule {}
