import { Injectable } from '@nestjs/common';
import {
  MEMBER_PAGE_SIZE,
  memberRecordsPage,
  type MemberRecordsPage,
} from '../../common/privacy/member-records';
import type { DbOrTx } from '../../database/database';
import { type NotificationResponseDto, toNotificationResponse } from './dto/notification.response';
import { NotificationsRepository } from './notifications.repository';
import { type MemberPreferences, NotificationsService } from './notifications.service';

/** A notification in a member's export: as `GET /notifications` lists it, without its text (extension 2.3). */
export type NotificationRecord = Omit<NotificationResponseDto, 'title' | 'content'>;

/**
 * A member's notifications in the mess the call runs in, and their preferences (extension 2.3): the export, and
 * erasure of the texts (they address the member by name) and of the preferences.
 */
@Injectable()
export class NotificationsMemberData {
  constructor(
    private readonly repository: NotificationsRepository,
    private readonly service: NotificationsService,
  ) {}

  async page(userId: string, after?: string): Promise<MemberRecordsPage<NotificationRecord>> {
    const rows = await this.repository.memberPage(userId, after, MEMBER_PAGE_SIZE);
    return memberRecordsPage(rows, MEMBER_PAGE_SIZE, (page) =>
      page.map((row) => {
        const { title: _title, content: _content, ...shown } = toNotificationResponse(row);
        return shown;
      }),
    );
  }

  /** As `GET /notifications/preferences` answers the member. */
  preferences(userId: string): Promise<MemberPreferences> {
    return this.service.preferences(userId);
  }

  /** In the erasure's transaction, in each mess of the member: their notifications' texts emptied. */
  erase(tx: DbOrTx, userId: string): Promise<void> {
    return this.repository.eraseTexts(tx, userId);
  }

  /** In the erasure's transaction, once: their preferences removed (the deployment's, not a mess's). */
  erasePreferences(tx: DbOrTx, userId: string): Promise<void> {
    return this.repository.erasePreferences(tx, userId);
  }
}
