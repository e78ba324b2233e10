export { PrivacyNoticeModule } from './privacy-notice.module';
export { PrivacyNotice } from './privacy-notice';
export { PrivacyNoticeDto } from './privacy-notice.dto';
