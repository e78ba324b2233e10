import { Body, Controller, Get, HttpCode, Patch, Post, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type CurrentMember, CurrentUser, Public, Allow } from '../../common/auth/auth.decorators';
import { ApiRoleAuth } from '../../common/http/api-docs';
import { MessConfigEnvelopeDto, MessConfigReadEnvelopeDto } from './dto/mess-config.dto';
import { MESS_ALREADY_SET_UP, MESS_NOT_SET_UP } from './mess-config.errors';
import { MessConfigService } from './mess-config.service';
import { MessFieldsDto, PatchMessConfigDto, ReplaceMessConfigDto } from './dto/messes.dto';

@ApiTags('Mess configuration')
@Controller('auth/admin')
export class MessConfigController {
  constructor(private readonly messConfig: MessConfigService) {}

  @Post('setup')
  @HttpCode(200)
  @Allow('mess.configure')
  @ApiOperation({ summary: 'Set the mess up (admin), once; a second attempt is 409' })
  @ApiOkResponse({ type: MessConfigEnvelopeDto })
  @ApiRoleAuth(400, [409, MESS_ALREADY_SET_UP])
  async setupMess(
    @CurrentUser() admin: CurrentMember,
    @Body() body: MessFieldsDto,
  ): Promise<MessConfigEnvelopeDto> {
    return { success: true, config: await this.messConfig.setup(admin.id, body) };
  }

  @Public()
  @Get('config')
  @ApiOperation({
    summary: 'Read the mess configuration (public); defaults apply until setup, with configured: false',
  })
  @ApiOkResponse({ type: MessConfigReadEnvelopeDto })
  async getMessConfig(): Promise<MessConfigReadEnvelopeDto> {
    return { success: true, config: await this.messConfig.readForClients() };
  }

  @Put('config')
  @Allow('mess.configure')
  @ApiOperation({ summary: 'Replace the mess configuration after setup (admin)' })
  @ApiOkResponse({ type: MessConfigEnvelopeDto })
  @ApiRoleAuth(400, [404, MESS_NOT_SET_UP])
  async replaceMessConfig(
    @CurrentUser() admin: CurrentMember,
    @Body() body: ReplaceMessConfigDto,
  ): Promise<MessConfigEnvelopeDto> {
    return { success: true, config: await this.messConfig.replace(admin.id, body) };
  }

  @Patch('config')
  @Allow('mess.set-upi')
  @ApiOperation({
    summary:
      "Change part of the mess configuration (admin; a treasurer the mess's upi only): what is sent changes, what is " +
      'left out stays',
    description:
      'Sent as null, monthlyBudget, markingWindow, capacity and upi are removed; any other field sent as null is a ' +
      "400. The read-only fields GET returns are ignored. A treasurer may send upi alone (their own mess's); any " +
      'other field is 403.',
  })
  @ApiOkResponse({ type: MessConfigEnvelopeDto })
  @ApiRoleAuth(400, [404, MESS_NOT_SET_UP])
  async patchMessConfig(
    @CurrentUser() member: CurrentMember,
    @Body() body: PatchMessConfigDto,
  ): Promise<MessConfigEnvelopeDto> {
    return { success: true, config: await this.messConfig.patch(member, { ...body }) };
  }
}
