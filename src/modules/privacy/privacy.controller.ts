import { Body, Controller, Get, HttpCode, Param, Post, Query, UseInterceptors } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Allow, type CurrentMember, CurrentUser } from '../../common/auth/auth.decorators';
import { ApiAuth, ApiRoleAuth } from '../../common/http/api-docs';
import { FileResponse, FileResponseInterceptor } from '../../common/http/file-response';
import { IdPipe } from '../../common/http/id.pipe';
import { MessDirectory } from '../messes';
import { toUserResponse } from '../users';
import {
  EraseMemberDto,
  ErasedUserEnvelopeDto,
  ErasureRequestEnvelopeDto,
  ErasureRequestListDto,
  ListErasureRequestsQuery,
  RequestErasureDto,
  toErasureRequest,
} from './dto/privacy.dto';
import { MEMBER_DATA_DOCUMENT } from './dto/member-data.document';
import { ErasureService } from './erasure.service';
import { MemberDataExport } from './member-data-export';
import { PrivacyErrors } from './privacy.errors';

const DATA_DESCRIPTION =
  'Everything the service holds about the person, in every mess they belonged to, as one JSON document with no ' +
  'envelope, downloaded as `mess-data-<id>.json` (Content-Disposition: attachment) and streamed as it is read: ' +
  '`{exportedAt, user, memberships: [{mess: {_id, slug, messName}, from, to}] (to: null for the current one), ' +
  'attendance, feedback, leaves, extras, paymentClaims, gatewayOrders, notifications (without their text), ' +
  'auditEvents, accountEntries: {<mess slug>: [Entry]}, preferences, choices}`, each record in the shape of its ' +
  'own route. No password hash, token or reset link.';

@ApiTags('Privacy')
@Controller('users')
export class PrivacyController {
  constructor(
    private readonly exporter: MemberDataExport,
    private readonly erasure: ErasureService,
    private readonly messes: MessDirectory,
  ) {}

  @Get('me/data')
  @UseInterceptors(FileResponseInterceptor)
  @ApiOperation({ summary: 'Download a copy of your data (any member)', description: DATA_DESCRIPTION })
  @ApiOkResponse(MEMBER_DATA_DOCUMENT)
  @ApiAuth()
  async downloadMyData(@CurrentUser() caller: CurrentMember): Promise<FileResponse> {
    return this.download(caller.id);
  }

  @Get('erasure-requests')
  @Allow('privacy.manage')
  @ApiOperation({ summary: "Members' erasure requests, newest first (admin)" })
  @ApiOkResponse({ type: ErasureRequestListDto })
  @ApiRoleAuth(400)
  async listErasureRequests(@Query() query: ListErasureRequestsQuery): Promise<ErasureRequestListDto> {
    return { success: true, requests: (await this.erasure.list(query.status)).map(toErasureRequest) };
  }

  @Post('me/erasure')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Ask for the erasure of your data (any member); an admin erases it',
    description:
      'The request waits for an admin (`GET /users/erasure-requests`, `POST /users/{id}/erase`); it becomes `done` ' +
      'when the member is erased. One pending request at a time (409).',
  })
  @ApiResponse({ status: 202, type: ErasureRequestEnvelopeDto })
  @ApiAuth(400, [409, PrivacyErrors.requestPending])
  async requestErasure(
    @CurrentUser() caller: CurrentMember,
    @Body() body: RequestErasureDto,
  ): Promise<ErasureRequestEnvelopeDto> {
    const row = await this.erasure.request(caller, body.reason);
    return {
      success: true,
      request: { _id: row.id, status: 'pending', createdAt: row.createdAt.toISOString() },
    };
  }

  @Get(':id/data')
  @Allow('privacy.manage')
  @UseInterceptors(FileResponseInterceptor)
  @ApiOperation({ summary: "Download a member's data (admin)", description: DATA_DESCRIPTION })
  @ApiOkResponse(MEMBER_DATA_DOCUMENT)
  @ApiRoleAuth(400, [404, 'User not found'])
  async downloadMemberData(@Param('id', IdPipe) id: string): Promise<FileResponse> {
    return this.download(id);
  }

  @Post(':id/erase')
  @HttpCode(200)
  @Allow('privacy.manage')
  @ApiOperation({
    summary: 'Erase a member: pseudonymised in one transaction, the books kept to the paisa (admin)',
    description:
      'Refused (409) while their balance in any mess they belonged to is not zero (naming the mess and the ' +
      'balance), for the last approved admin, and for a member already erased. Otherwise the member can no longer log in and every token of theirs is ' +
      'refused; `fullName` becomes `Former member <first 6 characters of the _id>`; email (free for a new ' +
      'registration), phone, college id, room, identity-provider subject, notification preferences, feedback ' +
      'comments, leave reasons and claim notes are removed, every audit snapshot value of theirs becomes null, and ' +
      'their name becomes the pseudonym (their email and phone removed) in every text the service stored in the ' +
      "messes they belonged to, others' notifications, decision notes and descriptions included (a mess they never " +
      "belonged to is not touched: its history is sealed from them). They leave the daily rate's rolls after " +
      'the day of the erasure. ' +
      'Marks, ratings, leave dates, extras, account entries and claims stay, so every bill, statement and total is ' +
      'unchanged. A pending request of theirs becomes `done`. They are then listed only by `GET /users?status=erased`.',
  })
  @ApiOkResponse({ type: ErasedUserEnvelopeDto })
  @ApiRoleAuth(
    400,
    [404, 'User not found'],
    [
      409,
      PrivacyErrors.settleFirst({ messName: 'Boys Hostel 1', slug: 'boys-h1' }, 125050),
      'The last approved admin cannot be erased',
      'The member is already erased',
    ],
  )
  async eraseMember(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
    @Body() _body: EraseMemberDto,
  ): Promise<ErasedUserEnvelopeDto> {
    const user = await this.erasure.erase(caller, id);
    return { success: true, user: toUserResponse(user, await this.messes.labels()) };
  }

  private async download(id: string): Promise<FileResponse> {
    const user = await this.erasure.member(id);
    return new FileResponse('application/json', `mess-data-${id}.json`, this.exporter.stream(user));
  }
}
