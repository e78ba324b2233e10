import { currentMessId } from '../../common/tenancy/mess-scope';
import { Injectable } from '@nestjs/common';
import { type CurrentMember } from '../../common/auth/auth.decorators';
import { can } from '../../common/auth/permissions';
import { badRequest, forbidden, notFound } from '../../common/errors/api-error';
import { DomainEventBus } from '../../common/events/domain-event-bus';
import { UpdateProfileDto } from './dto/user.requests';
import { memberUpdated } from './member-changes';
import { UsersRepository } from './users.repository';
import { PrivacyNotice } from '../privacy-notice';
import type { UserRow } from './users.schema';

/** A member's profile: read by themself or by those who read anyone's, edited by themself or an admin. */
@Injectable()
export class ProfilesService {
  constructor(
    private readonly repository: UsersRepository,
    private readonly events: DomainEventBus,
    private readonly notice: PrivacyNotice,
  ) {}

  /** A member reads themself; admins, managers and treasurers read anyone. */
  async getVisibleTo(caller: CurrentMember, id: string): Promise<UserRow> {
    if (caller.id !== id && !can(caller, 'users.read-any'))
      throw forbidden('You can only view your own profile');
    const row = await this.repository.findById(id);
    // A member of another mess is not there for its staff (an admin reads anyone).
    if (!row || (row.id !== caller.id && row.messId !== currentMessId() && !can(caller, 'messes.act-in-any')))
      throw notFound('User not found');
    return row;
  }

  async updateProfile(caller: CurrentMember, id: string, changes: UpdateProfileDto): Promise<UserRow> {
    if (caller.id !== id && !can(caller, 'users.edit-any'))
      throw forbidden('You can only edit your own profile');
    const { fullName, phone, room, acceptNotice } = changes;
    if (fullName === undefined && phone === undefined && room === undefined && acceptNotice === undefined) {
      throw badRequest('Validation failed', [
        { field: 'body', message: 'send at least one of fullName, phone, room, acceptNotice' },
      ]);
    }
    if (acceptNotice !== undefined && caller.id !== id) {
      throw badRequest('Validation failed', [
        { field: 'acceptNotice', message: 'only the member themself accepts the privacy notice' },
      ]);
    }
    // An erased member's profile stays empty (extension 2.3): nobody writes their values back.
    if ((await this.repository.findById(id))?.status === 'erased') throw notFound('User not found');
    const noticeVersion = acceptNotice === undefined ? undefined : await this.notice.accepted(acceptNotice);
    const row = memberUpdated(
      this.events,
      await this.repository.update(id, {
        ...(fullName !== undefined ? { fullName } : {}),
        ...(phone !== undefined ? { phone } : {}),
        ...(room !== undefined ? { room } : {}),
        ...(noticeVersion !== undefined ? { noticeVersion, noticeAcceptedAt: new Date() } : {}),
      }),
    );
    if (!row) throw notFound('User not found');
    return row;
  }

  async setPhone(caller: CurrentMember, phone: string): Promise<UserRow> {
    const row = memberUpdated(this.events, await this.repository.update(caller.id, { phone }));
    if (!row) throw notFound('User not found');
    return row;
  }
}
