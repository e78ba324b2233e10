import { Body, Controller, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Allow, type CurrentMember, CurrentUser } from '../../common/auth/auth.decorators';
import { ApiRoleAuth } from '../../common/http/api-docs';
import { IdPipe } from '../../common/http/id.pipe';
import { MESS_NOT_FOUND, MessDirectory } from '../messes';
import { toUserResponse } from '../users';
import { MovedEnvelopeDto, MoveMemberDto, MoveMembersDto, UserEnvelopeDto } from './memberships.dto';
import { MembershipsService } from './memberships.service';

const FULL = 'Mess <messName> is full';

@ApiTags('Messes')
@Controller()
export class MembershipsController {
  constructor(
    private readonly memberships: MembershipsService,
    private readonly directory: MessDirectory,
  ) {}

  @Put('users/:id/mess')
  @Allow('messes.manage')
  @ApiOperation({
    summary: 'Move a member to another mess (admin)',
    description:
      'From now on the member marks, asks for leave, gets passes and is counted in the new mess; what they did in ' +
      'the old one stays there (it bills them, its account keeps its entries). Their leave in the old mess whose ' +
      'meals are not over is cancelled. Moving a member to their own mess changes nothing.',
  })
  @ApiOkResponse({ type: UserEnvelopeDto })
  @ApiRoleAuth(400, [404, `User not found | ${MESS_NOT_FOUND}`], [409, FULL])
  async moveMember(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
    @Body() body: MoveMemberDto,
  ): Promise<UserEnvelopeDto> {
    const {
      members: [member],
    } = await this.memberships.move(caller, [id], body.mess, { idInPath: true });
    return { success: true, user: toUserResponse(member, await this.directory.labels()) };
  }

  @Post('messes/:mess/members')
  @HttpCode(200)
  @Allow('messes.manage')
  @ApiOperation({ summary: 'Move members to a mess in one batch (admin): all or nothing' })
  @ApiParam({ name: 'mess', description: 'An _id or a slug', example: 'hostel-7' })
  @ApiOkResponse({ type: MovedEnvelopeDto })
  @ApiRoleAuth(400, [404, `User <id> not found | ${MESS_NOT_FOUND}`], [409, FULL])
  async moveMembers(
    @CurrentUser() caller: CurrentMember,
    @Param('mess') mess: string,
    @Body() body: MoveMembersDto,
  ): Promise<MovedEnvelopeDto> {
    const { moved } = await this.memberships.move(caller, body.userIds, mess);
    return { success: true, moved };
  }
}
