import { Body, Controller, Delete, Get, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type CurrentMember,
  CurrentUser,
  Allow,
  OwnRecordsInAnyMess,
} from '../../common/auth/auth.decorators';
import { ApiAuth, ApiRoleAuth, MONTH_CLOSED } from '../../common/http/api-docs';
import { IdPipe } from '../../common/http/id.pipe';
import { toRupees } from '../../common/money/money';
import { ListExtrasQuery, RecordExtraDto } from './dto/extra.requests';
import { ExtraDeletedDto, ExtraEnvelopeDto, ExtraListDto, toExtraResponse } from './dto/extra.response';
import { EXTRA_DELETED, EXTRA_NOT_FOUND } from './extras.errors';
import { ExtrasService } from './extras.service';

@ApiTags('Extras')
@Controller('extras')
export class ExtrasController {
  constructor(private readonly extras: ExtrasService) {}

  @Post()
  @Allow('extras.record')
  @ApiOperation({
    summary: 'Record an extra for a member (manager; admin passes): an egg, a sweet, a guest meal',
    description:
      "`item` is one of the mess's `extraItems` (matched ignoring case, stored in the catalogue's spelling); its " +
      'price now is the `unitPrice` for good (a later price change does not alter it) and `amount` = unitPrice × ' +
      '`quantity` (1 to 20). The extra is charged with the share of the month of `date` (not in the future). 400 ' +
      'naming the field for an unknown item, a quantity out of range, a bad or future date, an unknown mealType, ' +
      'or a member who is not approved or does not dine; 404 for an unknown member; 409 when the month is closed.',
  })
  @ApiCreatedResponse({ type: ExtraEnvelopeDto })
  @ApiRoleAuth(400, [404, 'User not found'], [409, MONTH_CLOSED])
  async recordExtra(
    @CurrentUser() caller: CurrentMember,
    @Body() body: RecordExtraDto,
  ): Promise<ExtraEnvelopeDto> {
    const { extra, names } = await this.extras.record(caller, body);
    return { success: true, extra: toExtraResponse(extra, names) };
  }

  @Get()
  @OwnRecordsInAnyMess()
  @ApiOperation({
    summary: 'List extras, newest first (a student sees their own; manager, treasurer, admin see all)',
    description:
      '`month` and `date` filter by the day the item was taken; `limit` 1 to 100 (default 20). `totalAmount` is ' +
      'the exact sum over every matching extra.',
  })
  @ApiOkResponse({ type: ExtraListDto })
  @ApiAuth(400)
  async listExtras(
    @CurrentUser() caller: CurrentMember,
    @Query() query: ListExtrasQuery,
  ): Promise<ExtraListDto> {
    const { rows, names, total, totalPaise } = await this.extras.list(caller, query);
    return {
      success: true,
      extras: rows.map((row) => toExtraResponse(row, names)),
      totalAmount: toRupees(totalPaise),
      pagination: { page: query.page, limit: query.limit, total },
    };
  }

  @Delete(':id')
  @Allow('extras.record')
  @ApiOperation({
    summary: 'Delete an extra (manager; admin passes)',
    description: '409 when its month is closed (reopen the month first).',
  })
  @ApiOkResponse({ type: ExtraDeletedDto })
  @ApiRoleAuth(400, [404, EXTRA_NOT_FOUND], [409, MONTH_CLOSED])
  async deleteExtra(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
  ): Promise<ExtraDeletedDto> {
    await this.extras.remove(caller, id);
    return { success: true, message: EXTRA_DELETED };
  }
}
