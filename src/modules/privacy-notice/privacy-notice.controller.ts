import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../../common/auth/auth.decorators';
import { PrivacyNoticeEnvelopeDto } from './privacy-notice.dto';
import { PrivacyNotice } from './privacy-notice';

@ApiTags('Privacy')
@Controller('privacy')
export class PrivacyNoticeController {
  constructor(private readonly notice: PrivacyNotice) {}

  @Public()
  @Get()
  @ApiOperation({
    summary: "The deployment's privacy notice (public), or null when none is configured",
    description:
      'Set by an admin with `PATCH /auth/admin/config {privacyNotice}`. While one is set, registration needs ' +
      '`acceptNotice` equal to its `version`; a member whose `noticeAccepted.version` differs is asked again.',
  })
  @ApiOkResponse({ type: PrivacyNoticeEnvelopeDto })
  async getPrivacyNotice(): Promise<PrivacyNoticeEnvelopeDto> {
    return { success: true, notice: await this.notice.current() };
  }
}
