import { Controller, Get, Header, Query, UseInterceptors } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type CurrentMember,
  CurrentUser,
  Allow,
  OwnRecordsInAnyMess,
} from '../../common/auth/auth.decorators';
import { can } from '../../common/auth/permissions';
import { ApiAuth, ApiRoleAuth } from '../../common/http/api-docs';
import { FileResponse, FileResponseInterceptor } from '../../common/http/file-response';
import { currentMessId } from '../../common/tenancy/mess-scope';
import { BillPresenter } from './bill-presenter';
import { BillingService } from './billing.service';
import type { ShareMethod } from './cost-shares';
import { BillResponse, MyShareResponse, SharesQuery } from './dto/billing.dto';

const METHODS_DESCRIPTION =
  "Without `method`, the mess's `chargeMethod` (default proportional): what a close charges, so what a member " +
  'sees is what they are charged. method=spec is the contract literally: (total / active members) × (member ' +
  'meals / all meals); its shares add up to total / active members, the rest is `unallocated`. ' +
  'method=proportional: total × member meals / all meals, which recovers the whole total. Shares are rounded to ' +
  'the paisa with the leftover paise assigned to the largest remainders, so allocated + unallocated = ' +
  "totalExpenses exactly. Each line also gives the member's `extras` of the month and `total` = share + extras " +
  '(what a close charges); members with extras and no meals follow with share 0; `totalBilled` = allocated + ' +
  '`totalExtras`. Every present mark and every extra is billed, whoever dines now: a member who stops dining ' +
  'keeps the meals and extras of when they dined, and nobody can mark present (or record extras for) a member ' +
  'with `dines: false`, so the admin and the like are never on the bill. ' +
  "method=daily (extension 2.3; 400 naming `method` without the mess's `dailyRate`): each member on the mess's " +
  'rolls (from the day of their approval or move in to the day before their move out or rejection, while they ' +
  'dine) is charged `days × dailyRate − Σ rebates`, one rebate per approved leave = round(its full leave days in ' +
  'the month, after the band and the term cap, × rate × percent / 100) half up to the paisa; a leave day is a day ' +
  "all of whose meals the leave covers, and the band is chosen by all the leave's full days. The lines (by name) " +
  'then give `days`, `leaveDays`, `rebatedDays`, `rebate`, `share`, `extras`, `total`, and the bill `dailyRate` ' +
  'and `surplus` = Σ share − totalExpenses (negative: a deficit). Under every method each line names its member ' +
  'as `userId: {_id, fullName}` (the contract nests people in lists) and again as `fullName`.';

/** The month's bill: every member's share, the caller's own line, the CSV; under /analytics as the contract has it. */
@ApiTags('Analytics')
@Controller('analytics')
export class SharesController {
  constructor(
    private readonly billing: BillingService,
    private readonly presenter: BillPresenter,
  ) {}

  @Get('shares')
  @Allow('bills.read')
  @ApiOperation({
    summary: "The month's bill: every active member's meals and share",
    description: METHODS_DESCRIPTION,
  })
  @ApiOkResponse({ type: BillResponse })
  @ApiRoleAuth(400)
  @Header('content-type', 'application/json; charset=utf-8')
  async listShares(@Query() query: SharesQuery): Promise<string> {
    return this.presenter.json(this.billing.resolveMonth(query.month), await this.method(query));
  }

  @Get('shares/me')
  @OwnRecordsInAnyMess()
  @ApiOperation({
    summary: "The caller's own line of the month's bill (any member)",
    description:
      "Without `method`, the mess's `chargeMethod`: the amount a close charges the member. With `mess` naming a " +
      "mess the member belonged to (their own records there), the mess's figures (`totalExpenses`, " +
      '`activeMembers`, `totalMeals`) are given only for a month the member is on its bill (a meal or an extra ' +
      'there); for another month every number is 0.',
  })
  @ApiOkResponse({ type: MyShareResponse })
  @ApiAuth(400)
  async getMyShare(
    @CurrentUser() member: CurrentMember,
    @Query() query: SharesQuery,
  ): Promise<MyShareResponse> {
    // In a mess they have left a member reads their own line; the mess's month is not theirs beyond it.
    const atHome = member.messId === currentMessId() || can(member, 'bills.read');
    return this.presenter.myShare(
      member.id,
      this.billing.resolveMonth(query.month),
      await this.method(query),
      atHome ? 'always' : 'on-bill',
    );
  }

  @Get('shares.csv')
  @Allow('bills.read')
  @UseInterceptors(FileResponseInterceptor)
  @ApiOperation({
    summary: 'The bill as CSV (UTF-8 with BOM, one row per member), for spreadsheets',
    description:
      'Downloads as `mess-bill-<month>-<method>.csv` (Content-Disposition: attachment). ' +
      METHODS_DESCRIPTION,
  })
  // Only the success is CSV: its errors are JSON like every other route's, so no @ApiProduces here.
  @ApiOkResponse({
    headers: {
      'Content-Disposition': {
        description: 'attachment; filename="mess-bill-2025-03-proportional.csv"',
        schema: { type: 'string' },
      },
    },
    content: {
      'text/csv': {
        schema: { type: 'string', example: 'month,member_id,full_name,meals,share_inr,method,closed' },
      },
    },
  })
  @ApiRoleAuth(400)
  async downloadSharesCsv(@Query() query: SharesQuery): Promise<FileResponse> {
    const month = this.billing.resolveMonth(query.month);
    const method = await this.method(query);
    return new FileResponse(
      'text/csv; charset=utf-8',
      `mess-bill-${month}-${method}.csv`,
      await this.presenter.csv(month, method),
    );
  }

  /** The method asked for, else the mess's `chargeMethod`: what a close charges. */
  private async method(query: SharesQuery): Promise<ShareMethod> {
    return query.method ?? (await this.billing.chargeMethod());
  }
}
