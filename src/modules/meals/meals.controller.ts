import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type CurrentMember, CurrentUser, Allow } from '../../common/auth/auth.decorators';
import { ApiAuth, ApiRoleAuth } from '../../common/http/api-docs';
import { IdPipe } from '../../common/http/id.pipe';
import { CreateMealDto, ListMealsQuery, UpdateMealDto } from './dto/meal.requests';
import { MealDeletedDto, MealEnvelopeDto, MealListDto, toMealResponse } from './dto/meal.response';
import { MENU_TAKEN } from './meals.errors';
import { MealsService } from './meals.service';

/** What a 409 names: the menu that holds the slot. */
const MENU_TAKEN_EXAMPLE = [
  409,
  { error: MENU_TAKEN, existingId: '0193a5e4-7c1a-7c9e-9d3b-4a1f2e3d4c5b' },
] as const;

@ApiTags('Meals')
@Controller('meals')
export class MealsController {
  constructor(private readonly meals: MealsService) {}

  @Get()
  @ApiOperation({
    summary: 'Read the menu of a day, an ISO week or a range of days, optionally of one meal type',
    description:
      '`date` gives one day; `week` (with an optional `year`) gives Monday to Sunday of that ISO-8601 week; ' +
      '`from` and `to` give every day from one to the other, both included, at most 31 days; with none, the ' +
      'current week in the mess time zone. Two of these together are a 400 naming the fields, as are `from` ' +
      'without `to` (or the reverse), `to` before `from`, a range over 31 days, and week 53 of a year that has ' +
      '52. Ordered by date, then by the time of day of the meal.',
  })
  @ApiOkResponse({ type: MealListDto })
  @ApiAuth(400)
  async listMeals(@Query() query: ListMealsQuery): Promise<MealListDto> {
    const rows = await this.meals.list(query);
    return { success: true, meals: rows.map((r) => toMealResponse(r.meal, r.creatorName)) };
  }

  @Post()
  @Allow('menus.publish')
  @ApiOperation({
    summary: 'Publish the menu of one meal (manager; admin passes); the caller becomes its owner',
    description:
      '`mealType` must be one of the configured meal times. One menu per (date, mealType): a second is 409, ' +
      'whose `existingId` is the menu that holds the slot.',
  })
  @ApiCreatedResponse({ type: MealEnvelopeDto })
  @ApiRoleAuth(400, MENU_TAKEN_EXAMPLE)
  async createMeal(
    @CurrentUser() caller: CurrentMember,
    @Body() body: CreateMealDto,
  ): Promise<MealEnvelopeDto> {
    const { meal, creatorName } = await this.meals.publish(caller, body);
    return { success: true, meal: toMealResponse(meal, creatorName) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read one menu (an addition to the contract, for edit forms)' })
  @ApiOkResponse({ type: MealEnvelopeDto })
  @ApiAuth(400, [404, 'Meal not found'])
  async getMeal(@Param('id', IdPipe) id: string): Promise<MealEnvelopeDto> {
    const { meal, creatorName } = await this.meals.get(id);
    return { success: true, meal: toMealResponse(meal, creatorName) };
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Replace a menu (its publisher, or an admin)',
    description:
      'A full replacement with the same fields and rules as POST; an omitted `notes` becomes empty. ' +
      'Moving it onto a (date, mealType) that already has a menu is 409 (`existingId`: that menu). ' +
      "A menu of the weekly menu (`source: rotation`) is any manager's to edit, who becomes its publisher; the edit " +
      'makes it `manager`. Anyone else gets 403.',
  })
  @ApiOkResponse({ type: MealEnvelopeDto })
  @ApiAuth(400, [403, 'You can only change your own menus'], [404, 'Meal not found'], MENU_TAKEN_EXAMPLE)
  async replaceMeal(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
    @Body() body: UpdateMealDto,
  ): Promise<MealEnvelopeDto> {
    const { meal, creatorName } = await this.meals.replace(caller, id, body);
    return { success: true, meal: toMealResponse(meal, creatorName) };
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Delete a menu (its publisher, or an admin; any manager for a menu of the weekly menu)',
    description: 'The weekly menu leaves the slot empty from then on, until a manager publishes it again.',
  })
  @ApiOkResponse({ type: MealDeletedDto })
  @ApiAuth(400, [403, 'You can only change your own menus'], [404, 'Meal not found'])
  async deleteMeal(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
  ): Promise<MealDeletedDto> {
    await this.meals.remove(caller, id);
    return { success: true, message: 'Meal deleted' };
  }
}
