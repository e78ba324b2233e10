import { Injectable } from '@nestjs/common';
import {
  MEMBER_PAGE_SIZE,
  memberRecordsPage,
  type MemberRecordsPage,
} from '../../common/privacy/member-records';
import type { DbOrTx } from '../../database/database';
import { type FeedbackDto, toFeedbackResponse } from './dto/feedback.response';
import { FeedbackRepository } from './feedback.repository';

/** A member's feedback in the mess the call runs in: their export, and their comments' erasure (extension 2.3). */
@Injectable()
export class FeedbackMemberData {
  constructor(private readonly repository: FeedbackRepository) {}

  async page(userId: string, after?: string): Promise<MemberRecordsPage<FeedbackDto>> {
    const rows = await this.repository.memberPage(userId, after, MEMBER_PAGE_SIZE);
    return memberRecordsPage(rows, MEMBER_PAGE_SIZE, (page) => page.map(toFeedbackResponse));
  }

  /** In the erasure's transaction: comments emptied, ratings kept (the mess's figures). */
  erase(tx: DbOrTx, userId: string): Promise<void> {
    return this.repository.eraseComments(tx, userId);
  }
}
