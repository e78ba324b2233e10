import { Body, Controller, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type CurrentMember, CurrentUser, Allow } from '../../common/auth/auth.decorators';
import { ApiAuth, ApiRoleAuth } from '../../common/http/api-docs';
import { IdPipe } from '../../common/http/id.pipe';
import {
  ApproveUsersDto,
  ChangeRoleDto,
  ListUsersQuery,
  SetDinesDto,
  SetPhoneDto,
  UpdateProfileDto,
} from './dto/user.requests';
import {
  ApprovedEnvelopeDto,
  toUserResponse,
  UserEnvelopeDto,
  UserListDto,
  UserResponseDto,
  UserStatusChangeDto,
} from './dto/user.response';
import { MessDirectory } from '../messes';
import type { UserRow } from './users.schema';
import { ProfilesService } from './profiles.service';
import { UserAdministrationService } from './user-administration.service';

@ApiTags('Users')
@Controller('users')
export class UsersController {
  constructor(
    private readonly administration: UserAdministrationService,
    private readonly profiles: ProfilesService,
    private readonly messes: MessDirectory,
  ) {}

  /** A user as the API shows one, with their mess. */
  private async shown(row: UserRow): Promise<UserResponseDto> {
    return toUserResponse(row, await this.messes.labels());
  }

  @Get()
  @Allow('users.manage')
  @ApiOperation({ summary: 'List members (admin), newest first, filtered by status and role' })
  @ApiOkResponse({ type: UserListDto })
  @ApiRoleAuth(400)
  async listUsers(@Query() query: ListUsersQuery): Promise<UserListDto> {
    const [{ rows, total }, labels] = await Promise.all([
      this.administration.list(query),
      this.messes.labels(),
    ]);
    return {
      success: true,
      users: rows.map((row) => toUserResponse(row, labels)),
      pagination: { page: query.page, limit: query.limit, total },
    };
  }

  @Post('profile')
  @HttpCode(200)
  @ApiOperation({ summary: "Set the caller's phone number (200: an update, not a creation)" })
  @ApiOkResponse({ type: UserEnvelopeDto })
  @ApiAuth(400)
  async setProfilePhone(
    @CurrentUser() caller: CurrentMember,
    @Body() body: SetPhoneDto,
  ): Promise<UserEnvelopeDto> {
    return { success: true, user: await this.shown(await this.profiles.setPhone(caller, body.phone)) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a member: yourself, or anyone as admin, manager or treasurer' })
  @ApiOkResponse({ type: UserEnvelopeDto })
  @ApiAuth(400, [403, 'You can only view your own profile'], [404, 'User not found'])
  async getUser(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
  ): Promise<UserEnvelopeDto> {
    return { success: true, user: await this.shown(await this.profiles.getVisibleTo(caller, id)) };
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Update your own profile (fullName, phone, room); admins may update anyone',
    description:
      'Send at least one of `fullName`, `phone`, `room`; each is validated as at registration. Only the fields ' +
      'sent change. Role and status have their own routes.',
  })
  @ApiOkResponse({ type: UserEnvelopeDto })
  @ApiAuth(400, [403, 'You can only edit your own profile'], [404, 'User not found'])
  async updateUser(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
    @Body() body: UpdateProfileDto,
  ): Promise<UserEnvelopeDto> {
    return { success: true, user: await this.shown(await this.profiles.updateProfile(caller, id, body)) };
  }

  @Put(':id/role')
  @Allow('users.manage')
  @ApiOperation({
    summary: "Change a member's role (admin). The last approved admin cannot be demoted (409).",
  })
  @ApiOkResponse({ type: UserStatusChangeDto })
  @ApiRoleAuth(400, [404, 'User not found'], [409, 'The last approved admin cannot be demoted or rejected'])
  async changeUserRole(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
    @Body() body: ChangeRoleDto,
  ): Promise<UserStatusChangeDto> {
    const user = await this.administration.changeRole(caller, id, body.role);
    return { success: true, message: `Role set to ${user.role}`, user: await this.shown(user) };
  }

  @Put(':id/dines')
  @Allow('users.manage')
  @ApiOperation({
    summary: 'Say whether a member eats at the mess (admin)',
    description:
      'Members with `dines: false` (the admin the service creates at first start, for one) are left out of ' +
      '`totalMembers`, the headcount and the attendance rate at once; from then on nobody marks them present ' +
      "(their own marks, a manager's, a bulk row and the counter are refused) and no extras are recorded for " +
      'them, so they add nothing to a bill. What they ate or took while they dined stays billed: the change ' +
      'never re-bills the past. Idempotent.',
  })
  @ApiOkResponse({ type: UserStatusChangeDto })
  @ApiRoleAuth(400, [404, 'User not found'])
  async setUserDines(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
    @Body() body: SetDinesDto,
  ): Promise<UserStatusChangeDto> {
    const user = await this.administration.setDines(caller, id, body.dines);
    return {
      success: true,
      message: user.dines ? 'The member dines at the mess' : 'The member does not dine at the mess',
      user: await this.shown(user),
    };
  }

  @Post('approve')
  @HttpCode(200)
  @Allow('users.manage')
  @ApiOperation({
    summary: 'Approve members in bulk (admin): all or nothing',
    description:
      'Each member is approved as `PUT /users/{id}/approve` would: from pending or rejected, into the capacity of ' +
      'their own mess, in its audit trail. An id that names nobody is 404 naming it; a mess the approvals would ' +
      'take over its capacity is 409 naming it; either way nobody is approved. Members already approved are ' +
      'left as they are and not counted.',
  })
  @ApiOkResponse({ type: ApprovedEnvelopeDto })
  @ApiRoleAuth(400, [404, 'User <id> not found'], [409, 'Mess <messName> is full'])
  async approveUsers(
    @CurrentUser() caller: CurrentMember,
    @Body() body: ApproveUsersDto,
  ): Promise<ApprovedEnvelopeDto> {
    return { success: true, approved: (await this.administration.approveMany(caller, body.userIds)).length };
  }

  @Put(':id/approve')
  @Allow('users.manage')
  @ApiOperation({ summary: 'Approve a pending or rejected member (admin); idempotent' })
  @ApiOkResponse({ type: UserStatusChangeDto })
  @ApiRoleAuth(400, [404, 'User not found'])
  async approveUser(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
  ): Promise<UserStatusChangeDto> {
    return {
      success: true,
      message: 'User approved',
      user: await this.shown(await this.administration.approve(caller, id)),
    };
  }

  @Put(':id/reject')
  @Allow('users.manage')
  @ApiOperation({ summary: 'Reject a pending or approved member (admin); ends their sessions; idempotent' })
  @ApiOkResponse({ type: UserStatusChangeDto })
  @ApiRoleAuth(
    400,
    [404, 'User not found'],
    [409, 'You cannot reject your own account', 'The last approved admin cannot be demoted or rejected'],
  )
  async rejectUser(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
  ): Promise<UserStatusChangeDto> {
    return {
      success: true,
      message: 'User rejected',
      user: await this.shown(await this.administration.reject(caller, id)),
    };
  }
}
