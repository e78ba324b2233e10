import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { MessConfigController } from './mess-config.controller';
import { MessConfigRepository } from './mess-config.repository';
import { MessConfigService } from './mess-config.service';

@Module({
  imports: [AuditModule],
  controllers: [MessConfigController],
  providers: [MessConfigRepository, MessConfigService],
  exports: [MessConfigService],
})
export class MessConfigModule {}
