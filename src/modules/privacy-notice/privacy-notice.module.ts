import { Module } from '@nestjs/common';
import { PrivacyNoticeController } from './privacy-notice.controller';
import { PrivacyNoticeRepository } from './privacy-notice.repository';
import { PrivacyNotice } from './privacy-notice';

/** The deployment's privacy notice and its versions (extension 2.3). */
@Module({
  controllers: [PrivacyNoticeController],
  providers: [PrivacyNoticeRepository, PrivacyNotice],
  exports: [PrivacyNotice],
})
export class PrivacyNoticeModule {}
