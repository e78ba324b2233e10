import { Injectable } from '@nestjs/common';
import {
  MEMBER_PAGE_SIZE,
  memberRecordsPage,
  type MemberRecordsPage,
} from '../../common/privacy/member-records';
import { type AttendanceDto, toAttendanceResponse } from './dto/attendance.response';
import { AttendanceRepository } from './attendance.repository';

/** A member's marks in the mess the call runs in, for their data export (extension 2.3), as `GET /attendance`. */
@Injectable()
export class AttendanceMemberData {
  constructor(private readonly repository: AttendanceRepository) {}

  async page(userId: string, after?: string): Promise<MemberRecordsPage<AttendanceDto>> {
    const rows = await this.repository.memberPage(userId, after, MEMBER_PAGE_SIZE);
    return memberRecordsPage(rows, MEMBER_PAGE_SIZE, (page) => page.map(toAttendanceResponse));
  }
}
