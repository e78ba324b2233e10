import { Injectable } from '@nestjs/common';
import type { CurrentMember } from '../../common/auth/auth.decorators';
import { notFound } from '../../common/errors/api-error';
import { inMess } from '../../common/tenancy/mess-scope';
import { LeaveDecisionsService } from '../leave';
import { MESS_NOT_FOUND, MessDirectory } from '../messes';
import { UserAdministrationService, type UserRow } from '../users';

/**
 * Moving members between messes (extension 2.2): the move itself (users, all or nothing, capacity under the mess's
 * lock), then, in each mess a member left, their leave whose meals are not over is cancelled.
 */
@Injectable()
export class MembershipsService {
  constructor(
    private readonly administration: UserAdministrationService,
    private readonly leave: LeaveDecisionsService,
    private readonly directory: MessDirectory,
  ) {}

  /** Returns every member named, as they are now, and how many changed mess. */
  async move(
    caller: CurrentMember,
    userIds: string[],
    messRef: string,
  ): Promise<{ members: UserRow[]; moved: number }> {
    const mess = await this.directory.find(messRef);
    if (!mess) throw notFound(MESS_NOT_FOUND);
    const { members, moved } = await this.administration.moveToMess(caller, userIds, mess.id);
    for (const { member, fromMessId } of moved) {
      await inMess(fromMessId, () => this.leave.cancelForMove(member.id, caller.id));
    }
    return { members, moved: moved.length };
  }
}
