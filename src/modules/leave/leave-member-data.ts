import { Injectable } from '@nestjs/common';
import {
  MEMBER_PAGE_SIZE,
  memberRecordsPage,
  type MemberRecordsPage,
} from '../../common/privacy/member-records';
import type { DbOrTx } from '../../database/database';
import { LeaveRecords } from '../leave-calendar';
import { type LeaveDto, toLeaveResponse } from './dto/leave.response';

/** A member's leave in the mess the call runs in: their export, and their reasons' erasure (extension 2.3). */
@Injectable()
export class LeaveMemberData {
  constructor(private readonly records: LeaveRecords) {}

  async page(userId: string, after?: string): Promise<MemberRecordsPage<LeaveDto>> {
    const rows = await this.records.memberPage(userId, after, MEMBER_PAGE_SIZE);
    const fullName = rows.length ? await this.records.fullNameOf(userId) : null;
    return memberRecordsPage(rows, MEMBER_PAGE_SIZE, (page) =>
      page.map((row) => toLeaveResponse(row, fullName)),
    );
  }

  /** In the erasure's transaction: reasons emptied; dates, days and decisions kept (they move bills). */
  erase(tx: DbOrTx, userId: string): Promise<void> {
    return this.records.eraseReasons(tx, userId);
  }
}
