import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Allow, type CurrentMember, CurrentUser } from '../../common/auth/auth.decorators';
import { can } from '../../common/auth/permissions';
import { ApiRoleAuth } from '../../common/http/api-docs';
import { PaginationDto } from '../../common/http/paging';
import { ListMembersQuery } from './dto/user.requests';
import { UsersService } from './users.service';
import { ROLES, USER_STATUSES, type Role, type UserRow, type UserStatus } from './users.schema';

export class RosterMemberDto {
  @ApiProperty() _id: string;
  @ApiProperty({ example: 'Asha Verma' }) fullName: string;
  @ApiProperty({ example: 'B-214' }) room: string;
  @ApiProperty({ example: 'CS21B042' }) collegeId: string;
  @ApiProperty({ enum: ROLES }) role: Role;
  @ApiProperty({ enum: USER_STATUSES }) status: UserStatus;
  @ApiProperty({ description: 'Eats at the mess (counted in the headcount and the bill)' }) dines: boolean;
  @ApiProperty({ description: 'Whether a phone number is set (WhatsApp notifications reach them)' })
  hasPhone: boolean;
  @ApiPropertyOptional({ description: 'Admins only' }) email?: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'Admins only' }) phone?: string | null;
}

export class RosterDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: [RosterMemberDto] }) members: RosterMemberDto[];
  @ApiProperty({ type: PaginationDto }) pagination: PaginationDto;
}

/**
 * The roster (issue 24): the staff of a mess list its members to mark, record extras and leave for them. User
 * administration (`GET /users`) stays with admins; emails and phone numbers are shown to admins only.
 */
@ApiTags('Users')
@Controller('members')
export class RosterController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @Allow('members.list')
  @ApiOperation({
    summary:
      "The mess's members (managers, treasurers, admins), by name; filter by status, role, dines or a search",
  })
  @ApiOkResponse({ type: RosterDto })
  @ApiRoleAuth(400)
  async listMembers(
    @CurrentUser() caller: CurrentMember,
    @Query() query: ListMembersQuery,
  ): Promise<RosterDto> {
    const { rows, total } = await this.users.roster({
      status: query.status,
      role: query.role,
      dines: query.dines === undefined ? undefined : query.dines === 'true',
      search: query.q,
      limit: query.limit,
      offset: (query.page - 1) * query.limit,
    });
    const contacts = can(caller, 'users.manage');
    return {
      success: true,
      members: rows.map((row) => toRosterMember(row, contacts)),
      pagination: { page: query.page, limit: query.limit, total },
    };
  }
}

function toRosterMember(row: UserRow, contacts: boolean): RosterMemberDto {
  return {
    _id: row.id,
    fullName: row.fullName,
    room: row.room,
    collegeId: row.collegeId,
    role: row.role,
    status: row.status,
    dines: row.dines,
    hasPhone: row.phone !== null,
    ...(contacts ? { email: row.email, phone: row.phone } : {}),
  };
}
