import { Injectable } from '@nestjs/common';
import { badRequest } from '../../common/errors/api-error';
import { type PrivacyNoticeDto, toNotice } from './privacy-notice.dto';
import { PrivacyNoticeRepository } from './privacy-notice.repository';

/**
 * The deployment's privacy notice (extension 2.3): what registration asks a newcomer to accept, and what a member
 * who accepted an older version is asked again (their profile's `noticeAccepted.version` differs; no route refuses
 * them). Read on every registration: one indexed row.
 */
@Injectable()
export class PrivacyNotice {
  constructor(private readonly repository: PrivacyNoticeRepository) {}

  async current(): Promise<PrivacyNoticeDto | null> {
    return toNotice(await this.repository.inForce());
  }

  /** `PATCH /auth/admin/config {privacyNotice}`: a new version in force, or (null) none; every version is kept. */
  async set(notice: PrivacyNoticeDto | null, adminId: string): Promise<PrivacyNoticeDto | null> {
    const row = await this.repository.replace(
      notice && {
        version: notice.version,
        url: notice.url,
        grievanceOfficerName: notice.grievanceOfficer.name,
        grievanceOfficerEmail: notice.grievanceOfficer.email,
      },
      adminId,
    );
    return toNotice(row);
  }

  /**
   * The version a newcomer accepts (`acceptNotice`), checked against the notice in force: none in force, nothing to
   * accept (undefined); else `acceptNotice` must equal its version (400 naming `acceptNotice`).
   */
  async accepted(acceptNotice: string | undefined): Promise<string | undefined> {
    const notice = await this.current();
    if (!notice) return undefined;
    if (acceptNotice !== notice.version) {
      throw badRequest('Validation failed', [
        {
          field: 'acceptNotice',
          message: `acceptNotice must be "${notice.version}", the version of the privacy notice (GET /api/privacy)`,
        },
      ]);
    }
    return notice.version;
  }
}
