import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { type CurrentMember, CurrentUser, Public, Allow } from '../../common/auth/auth.decorators';
import { notFound } from '../../common/errors/api-error';
import { ApiRoleAuth } from '../../common/http/api-docs';
import { FIRST_MESS_ID } from '../../common/tenancy/mess-scope';
import { MESS_NOT_FOUND } from '../messes';
import { CreateMessDto, MessEnvelopeDto, MessesEnvelopeDto } from './dto/messes.dto';
import { MessConfigDto } from './dto/mess-config.dto';
import { MESS_NAME_TAKEN, SLUG_TAKEN } from './mess-config.errors';
import { MessCatalogue } from './mess-catalogue.service';

/** Extension 2.2: the deployment's messes. */
@ApiTags('Messes')
@Controller('messes')
export class MessesController {
  constructor(private readonly catalogue: MessCatalogue) {}

  @Public()
  @Get()
  @ApiOperation({ summary: 'Every mess of the deployment, ordered by name (public)' })
  @ApiOkResponse({ type: MessesEnvelopeDto })
  async listMesses(): Promise<MessesEnvelopeDto> {
    return { success: true, messes: await this.catalogue.listMesses() };
  }

  @Public()
  @Get(':mess')
  @ApiOperation({ summary: 'One mess, by _id or slug (public)' })
  // The first mess's fixed id: it exists on every deployment, whatever its slug became.
  @ApiParam({ name: 'mess', description: 'An _id or a slug', example: FIRST_MESS_ID })
  @ApiOkResponse({ type: MessEnvelopeDto })
  async getMess(@Param('mess') idOrSlug: string): Promise<MessEnvelopeDto> {
    const mess = await this.catalogue.findMess(idOrSlug);
    if (!mess) throw notFound(MESS_NOT_FOUND);
    return { success: true, mess };
  }

  @Post()
  @Allow('messes.manage')
  @ApiOperation({
    summary: 'Create a mess with its configuration (admin): the setup body plus slug, capacity and upi',
  })
  @ApiCreatedResponse({ type: MessEnvelopeDto })
  @ApiRoleAuth(400, [409, `${SLUG_TAKEN} | ${MESS_NAME_TAKEN}`])
  async createMess(
    @CurrentUser() admin: CurrentMember,
    @Body() body: CreateMessDto,
  ): Promise<MessEnvelopeDto & { config: MessConfigDto }> {
    return { success: true, ...(await this.catalogue.createMess(admin.id, body)) };
  }
}
