import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Allow, type CurrentMember, CurrentUser } from '../../common/auth/auth.decorators';
import { can } from '../../common/auth/permissions';
import { ApiAuth, ApiRoleAuth } from '../../common/http/api-docs';
import { IdPipe } from '../../common/http/id.pipe';
import { Clock } from '../../common/time/clock';
import { MessDirectory } from '../messes';
import { UsersService } from '../users';
import { AllocationService } from './allocation.service';
import {
  AllocationEnvelopeDto,
  ChoiceEnvelopeDto,
  CloseEnvelopeDto,
  CreateWindowDto,
  ListWindowsQuery,
  SaveChoiceDto,
  SuccessDto,
  toAllocationResponse,
  toChoiceResponse,
  toWindowResponse,
  WindowEnvelopeDto,
  WindowsEnvelopeDto,
} from './dto/mess-windows.dto';
import {
  ALREADY_APPLIED,
  ALREADY_CLOSED,
  CANCELLED,
  CHOICE_NOT_FOUND,
  NOT_A_DINER,
  NOT_ALLOCATED,
  NOT_OPEN,
  NOT_YET_OPEN,
  WINDOW_NOT_FOUND,
} from './mess-windows';
import { MessWindowsService } from './mess-windows.service';
import { TERM_TAKEN } from './terms.repository';
import type { MessWindowRow } from './terms.schema';

@ApiTags('Mess windows')
@Controller('mess-windows')
export class TermsController {
  constructor(
    private readonly windows: MessWindowsService,
    private readonly allocations: AllocationService,
    private readonly directory: MessDirectory,
    private readonly users: UsersService,
    private readonly clock: Clock,
  ) {}

  @Post()
  @Allow('mess-windows.manage')
  @ApiOperation({
    summary: 'Open a window in which members choose their mess for a term (admin)',
    description:
      'Members rank the messes of the window while it is open; at `closesAt` (or `POST …/close`) a lottery anyone ' +
      'can check allocates the seats, and the moves are made on `effectiveFrom` as a move by hand is made.',
  })
  @ApiCreatedResponse({ type: WindowEnvelopeDto })
  @ApiRoleAuth(400, [409, TERM_TAKEN])
  async createWindow(
    @CurrentUser() caller: CurrentMember,
    @Body() body: CreateWindowDto,
  ): Promise<WindowEnvelopeDto> {
    const messIds = body.messes
      ? await Promise.all(body.messes.map(async (ref) => (await this.directory.find(ref))!.id))
      : undefined;
    const window = await this.windows.create(caller, {
      term: body.term,
      opensAt: new Date(body.opensAt),
      closesAt: new Date(body.closesAt),
      effectiveFrom: body.effectiveFrom,
      messIds,
      maxPreferences: body.maxPreferences,
    });
    return { success: true, window: await this.present(window) };
  }

  @Get()
  @ApiOperation({ summary: 'The term windows, newest first (any member)' })
  @ApiOkResponse({ type: WindowsEnvelopeDto })
  @ApiAuth(400)
  async listWindows(@Query() query: ListWindowsQuery): Promise<WindowsEnvelopeDto> {
    const rows = await this.windows.list(query.status);
    return { success: true, windows: await Promise.all(rows.map((w) => this.present(w))) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'A term window (any member)' })
  @ApiOkResponse({ type: WindowEnvelopeDto })
  @ApiAuth(400, [404, WINDOW_NOT_FOUND])
  async getWindow(@Param('id', IdPipe) id: string): Promise<WindowEnvelopeDto> {
    return { success: true, window: await this.present(await this.windows.get(id)) };
  }

  @Put(':id/choice')
  @ApiOperation({
    summary: 'Rank the messes you want for the term (an approved member who dines)',
    description:
      'Saved over any earlier choice: only the latest counts. How full a mess is does not matter until the lottery.',
  })
  @ApiOkResponse({ type: ChoiceEnvelopeDto })
  @ApiAuth(400, [403, NOT_A_DINER], [404, WINDOW_NOT_FOUND], [409, NOT_OPEN])
  async saveChoice(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
    @Body() body: SaveChoiceDto,
  ): Promise<ChoiceEnvelopeDto> {
    const { choice } = await this.windows.saveChoice(caller, id, body.preferences);
    return { success: true, choice: toChoiceResponse(choice, await this.directory.labels()) };
  }

  @Get(':id/choice')
  @ApiOperation({ summary: 'Your choice in a window' })
  @ApiOkResponse({ type: ChoiceEnvelopeDto })
  @ApiAuth(400, [404, `${WINDOW_NOT_FOUND} | ${CHOICE_NOT_FOUND}`])
  async getChoice(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
  ): Promise<ChoiceEnvelopeDto> {
    const choice = await this.windows.choice(caller, id);
    return { success: true, choice: toChoiceResponse(choice, await this.directory.labels()) };
  }

  @Delete(':id/choice')
  @ApiOperation({ summary: 'Withdraw your choice while the window is open' })
  @ApiOkResponse({ type: SuccessDto })
  @ApiAuth(400, [404, `${WINDOW_NOT_FOUND} | ${CHOICE_NOT_FOUND}`], [409, NOT_OPEN])
  async deleteChoice(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
  ): Promise<SuccessDto> {
    await this.windows.withdrawChoice(caller, id);
    return { success: true };
  }

  @Post(':id/close')
  @HttpCode(200)
  @Allow('mess-windows.manage')
  @ApiOperation({
    summary: 'Close the window now and run its lottery (admin)',
    description: 'When `effectiveFrom` has come, the moves are made at once as well.',
  })
  @ApiOkResponse({ type: CloseEnvelopeDto })
  @ApiRoleAuth(400, [404, WINDOW_NOT_FOUND], [409, `${ALREADY_CLOSED} | ${CANCELLED} | ${NOT_YET_OPEN}`])
  async closeWindow(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
  ): Promise<CloseEnvelopeDto> {
    const window = await this.allocations.closeNow(caller, id);
    return { success: true, window: await this.present(window), allocation: await this.allocation(id) };
  }

  @Get(':id/allocation')
  @ApiOperation({
    summary: "A window's allocation: every line (admin), or your own (a member)",
    description:
      'Lines in the order of the draw, each with the SHA-256 it was drawn by: with the published seed anyone can ' +
      'recompute the order and the seats (docs/lottery.md).',
  })
  @ApiOkResponse({ type: AllocationEnvelopeDto })
  @ApiAuth(400, [404, WINDOW_NOT_FOUND], [409, NOT_ALLOCATED])
  async getAllocation(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
  ): Promise<AllocationEnvelopeDto> {
    const ownOnly = !can(caller, 'mess-windows.manage');
    return { success: true, ...(await this.allocation(id, ownOnly ? caller.id : undefined)) };
  }

  @Delete(':id')
  @Allow('mess-windows.manage')
  @ApiOperation({ summary: 'Cancel a window (admin): no lottery, or no moves if it has run' })
  @ApiOkResponse({ type: WindowEnvelopeDto })
  @ApiRoleAuth(400, [404, WINDOW_NOT_FOUND], [409, `${ALREADY_APPLIED} | ${CANCELLED}`])
  async cancelWindow(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
  ): Promise<WindowEnvelopeDto> {
    return { success: true, window: await this.present(await this.windows.cancel(caller, id)) };
  }

  private async allocation(id: string, userId?: string) {
    const { window, lines, summary } = await this.allocations.allocation(id, userId);
    const names = await this.users.namesOf(lines.map((l) => l.userId));
    return toAllocationResponse(window.seed!, lines, summary, names, await this.directory.labels());
  }

  private async present(window: MessWindowRow) {
    const capacities = new Map((await this.directory.all()).map((m) => [m.id, m.capacity]));
    return toWindowResponse(window, await this.directory.labels(), capacities, this.clock.now());
  }
}
