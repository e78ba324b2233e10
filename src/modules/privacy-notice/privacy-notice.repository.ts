import { Injectable } from '@nestjs/common';
import { isNull } from 'drizzle-orm';
import { Database } from '../../database/database';
import { type PrivacyNoticeRow, privacyNotices } from './privacy-notice.schema';

export interface NoticeValues {
  version: string;
  url: string;
  grievanceOfficerName: string;
  grievanceOfficerEmail: string;
}

/** The only code that queries `privacy_notices`: the deployment's notice, every version kept. */
@Injectable()
export class PrivacyNoticeRepository {
  constructor(private readonly database: Database) {}

  async inForce(): Promise<PrivacyNoticeRow | undefined> {
    const [row] = await this.database.db
      .select()
      .from(privacyNotices)
      .where(isNull(privacyNotices.withdrawnAt))
      .limit(1);
    return row;
  }

  /** Withdraws the notice in force, and puts `next` in force (none when null), in one transaction. */
  async replace(next: NoticeValues | null, setBy: string): Promise<PrivacyNoticeRow | undefined> {
    return this.database.db.transaction(async (tx) => {
      await tx
        .update(privacyNotices)
        .set({ withdrawnAt: new Date() })
        .where(isNull(privacyNotices.withdrawnAt));
      if (!next) return undefined;
      const [row] = await tx
        .insert(privacyNotices)
        .values({ ...next, setBy })
        .returning();
      return row;
    });
  }
}
