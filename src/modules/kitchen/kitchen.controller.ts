import { Body, Controller, Get, Param, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Allow, type CurrentMember, CurrentUser } from '../../common/auth/auth.decorators';
import { ApiRoleAuth } from '../../common/http/api-docs';
import { AccuracyQuery, ForecastQuery, RecordWasteDto, WasteMonthQuery } from './dto/kitchen.requests';
import {
  AccuracyDto,
  ForecastListDto,
  toAccuracyDayResponse,
  toForecastResponse,
  toWasteResponse,
  WasteEnvelopeDto,
  WasteMonthDto,
} from './dto/kitchen.response';
import { ForecastService } from './forecast.service';
import { MEAL_NOT_STARTED } from './kitchen.errors';
import { WasteService } from './waste.service';

const kg = (grams: number) => grams / 1000;

@ApiTags('Kitchen')
@Controller('kitchen')
export class KitchenController {
  constructor(
    private readonly forecasts: ForecastService,
    private readonly waste: WasteService,
  ) {}

  @Get('forecast')
  @Allow('kitchen.forecast')
  @ApiOperation({
    summary: 'Plates to expect per meal, with an 80 % interval (manager; admin passes)',
    description:
      'One forecast per configured meal time of each date from `from` to `to` (default today and 6 days on; at ' +
      'most 14 days), by date then meal time. `expected` is the plates to cook for; `low`–`high` an 80 % interval ' +
      '(about 1 meal in 10 comes below `low`, 1 in 10 above `high`); never more than `members − onLeave`. A ' +
      'forecast for a date uses the attendance of the dates before it (and before today), the members, leave and ' +
      'menus as they stand, and, for today and later, the marks already made for that date (`declared`); a past ' +
      "date's forecast ignores its own marks: what the service would have said the evening before. `basis` says " +
      'what the number was made from (a new mess with no attendance yet assumes 70 % of its members). 400 naming ' +
      '`from`/`to` for a bad date or range.',
  })
  @ApiOkResponse({ type: ForecastListDto })
  @ApiRoleAuth(400)
  async getForecast(@Query() query: ForecastQuery): Promise<ForecastListDto> {
    const forecasts = await this.forecasts.forecast(query);
    return { success: true, forecasts: forecasts.map(toForecastResponse) };
  }

  @Get('forecast/accuracy')
  @Allow('kitchen.forecast')
  @ApiOperation({
    summary:
      'The back-test: past meals forecast as of the evening before, against what came (manager; admin passes)',
    description:
      'Each meal with a menu from `from` to `to` (past dates; default the 28 days before today; at most 92 days): ' +
      "what the service said the evening before (the last forecast it answered before the meal's day began in the " +
      "mess's time zone, by this route or the hourly one of tomorrow's; `madeAt` when), or, when it answered none, " +
      'the forecast recomputed from what was known before that date (none of its own marks; `madeAt` null), and ' +
      'the actual (its present marks). `wape` = Σ|forecast − actual| ÷ Σ actual, `bias` = Σ(forecast − actual) ÷ Σ actual (fractions, 4 ' +
      'decimals; null when nobody came), and `baseline` the same WAPE for "the same meal seven days earlier". 400 ' +
      'naming `from`/`to` for a date that is not past or a bad range.',
  })
  @ApiOkResponse({ type: AccuracyDto })
  @ApiRoleAuth(400)
  async getForecastAccuracy(@Query() query: AccuracyQuery): Promise<AccuracyDto> {
    const { days, summary } = await this.forecasts.accuracy(query);
    return { success: true, days: days.map(toAccuracyDayResponse), summary };
  }

  @Put('waste/:date/:mealType')
  @Allow('kitchen.record-waste')
  @ApiOperation({
    summary: "Record a meal's waste: what was prepared and thrown away (manager; admin passes)",
    description:
      'One record per meal: a second `PUT` replaces it (both audited, entity `waste`). `leftoverKg` 0 to 10,000 ' +
      'with at most three decimals; `preparedPlates` 0 to 100,000. One 400 names every bad field of the path and ' +
      'the body at once (the date: a real date; the meal type: a configured meal time), 409 for a meal that has ' +
      'not started yet.',
  })
  @ApiParam({ name: 'date', example: '2025-03-14' })
  @ApiParam({ name: 'mealType', example: 'Lunch' })
  @ApiOkResponse({ type: WasteEnvelopeDto })
  @ApiRoleAuth(400, [409, MEAL_NOT_STARTED])
  async recordWaste(
    @CurrentUser() caller: CurrentMember,
    @Param('date') date: string,
    @Param('mealType') mealType: string,
    @Body() body: RecordWasteDto,
  ): Promise<WasteEnvelopeDto> {
    const row = await this.waste.record(caller, date, mealType, {
      preparedPlates: body.preparedPlates,
      leftoverGrams: Math.round(body.leftoverKg * 1000),
      note: body.note,
    });
    return { success: true, waste: toWasteResponse(row, new Map([[caller.id, caller.fullName]])) };
  }

  @Get('waste')
  @Allow('kitchen.read-waste')
  @ApiOperation({
    summary: "The month's waste log and summary (manager, treasurer; admin passes)",
    description:
      '`perDinerGrams` = leftover grams ÷ the present marks of the meals with a record, rounded to the gram ' +
      '(null when nobody was marked present at them); the same per meal type in `byMealType`.',
  })
  @ApiOkResponse({ type: WasteMonthDto })
  @ApiRoleAuth(400)
  async listWaste(@Query() query: WasteMonthQuery): Promise<WasteMonthDto> {
    const { month, entries, names, summary } = await this.waste.month(query.month);
    const figures = (f: { leftoverGrams: number; perDinerGrams: number | null }) => ({
      leftoverKg: kg(f.leftoverGrams),
      perDinerGrams: f.perDinerGrams,
    });
    return {
      success: true,
      month,
      entries: entries.map((row) => toWasteResponse(row, names)),
      summary: {
        ...figures(summary),
        byMealType: Object.fromEntries(Object.entries(summary.byMealType).map(([m, f]) => [m, figures(f)])),
      },
    };
  }
}
