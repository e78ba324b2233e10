import { Body, Controller, Delete, Get, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type CurrentMember, CurrentUser, Allow } from '../../common/auth/auth.decorators';
import { ApiAuth, ApiRoleAuth } from '../../common/http/api-docs';
import { SetRotationDto } from './dto/rotation.requests';
import { RotationDeletedDto, RotationEnvelopeDto, toRotationResponse } from './dto/rotation.response';
import { RotationService } from './rotation.service';

/** The weekly menu. Its routes come before `/meals/:id`, so `rotation` is never read as a menu id. */
@ApiTags('Meals')
@Controller('meals/rotation')
export class RotationController {
  constructor(private readonly rotation: RotationService) {}

  @Get()
  @ApiOperation({ summary: "Read the mess's weekly menu (null when it has none)" })
  @ApiOkResponse({ type: RotationEnvelopeDto })
  @ApiAuth()
  async getRotation(): Promise<RotationEnvelopeDto> {
    const found = await this.rotation.get();
    return { success: true, rotation: found ? toRotationResponse(found.rotation, found.updaterName) : null };
  }

  @Put()
  @Allow('menus.publish')
  @ApiOperation({
    summary: "Set the mess's weekly menu (manager; admin passes)",
    description:
      'A rotation of `weeks` (1 to 6) weeks from `startsOn` (a Monday); the date d is in week ' +
      '((d − startsOn) in days div 7) mod weeks + 1. Its menus are published for today and the next 13 days into ' +
      'every slot that has no menu and that no manager withdrew, with `source: rotation`, and each day for the day ' +
      'coming into that range; they send no MEAL_UPDATE. Replacing a rotation first withdraws its menus of the ' +
      "coming days that nobody edited (today's only while its meal has not started). Bad input is a 400 naming " +
      'each bad field (`startsOn`, `weeks`, `entries.<i>.week`, `.day`, `.mealType`, `.dishes`, `.notes`, a ' +
      'duplicate `entries.<i>`) and changes nothing.',
  })
  @ApiOkResponse({ type: RotationEnvelopeDto })
  @ApiRoleAuth(400)
  async setRotation(
    @CurrentUser() caller: CurrentMember,
    @Body() body: SetRotationDto,
  ): Promise<RotationEnvelopeDto> {
    const { rotation, updaterName } = await this.rotation.set(caller, body);
    return { success: true, rotation: toRotationResponse(rotation, updaterName) };
  }

  @Delete()
  @Allow('menus.publish')
  @ApiOperation({
    summary: "Delete the mess's weekly menu (manager; admin passes)",
    description:
      "Withdraws its menus of the coming days that nobody edited (today's only while its meal has not started); " +
      "managers' menus and edited ones stay. Without a rotation it is 200 all the same.",
  })
  @ApiOkResponse({ type: RotationDeletedDto })
  @ApiRoleAuth()
  async deleteRotation(@CurrentUser() caller: CurrentMember): Promise<RotationDeletedDto> {
    const removed = await this.rotation.remove(caller);
    return { success: true, message: removed ? 'Rotation deleted' : 'No rotation to delete' };
  }
}
