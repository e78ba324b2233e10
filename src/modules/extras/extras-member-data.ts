import { Injectable } from '@nestjs/common';
import {
  MEMBER_PAGE_SIZE,
  memberRecordsPage,
  type MemberRecordsPage,
} from '../../common/privacy/member-records';
import { UsersService } from '../users';
import { type ExtraDto, toExtraResponse } from './dto/extra.response';
import { ExtrasRepository } from './extras.repository';

/** A member's extras in the mess the call runs in, for their data export (extension 2.3), as `GET /extras`. */
@Injectable()
export class ExtrasMemberData {
  constructor(
    private readonly repository: ExtrasRepository,
    private readonly users: UsersService,
  ) {}

  async page(userId: string, after?: string): Promise<MemberRecordsPage<ExtraDto>> {
    const rows = await this.repository.memberPage(userId, after, MEMBER_PAGE_SIZE);
    const names = await this.users.namesOf([...new Set(rows.flatMap((r) => [r.userId, r.recordedBy]))]);
    return memberRecordsPage(rows, MEMBER_PAGE_SIZE, (page) =>
      page.map((row) => toExtraResponse(row, names)),
    );
  }
}
