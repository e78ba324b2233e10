import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type CurrentMember, CurrentUser, Allow } from '../../common/auth/auth.decorators';
import { ApiAuth, ApiRoleAuth, MONTH_CLOSED } from '../../common/http/api-docs';
import { IdPipe } from '../../common/http/id.pipe';
import { toRupees } from '../../common/money/money';
import { CreateExpenseDto, ListExpensesQuery, UpdateExpenseDto } from './dto/expense.requests';
import {
  ExpenseDeletedDto,
  ExpenseEnvelopeDto,
  ExpenseListDto,
  toExpenseResponse,
} from './dto/expense.response';
import { ExpensesService } from './expenses.service';

@ApiTags('Expenses')
@Controller('expenses')
export class ExpensesController {
  constructor(private readonly expenses: ExpensesService) {}

  @Get()
  @ApiOperation({
    summary: 'List expenses, newest first, filtered by category and date range, a page at a time',
    description:
      '`limit` is 1 to 100 (default 10); a larger value is a 400. `startDate`/`endDate` are inclusive and ' +
      '`startDate` may not be after `endDate`. `totalAmount` is the exact sum over every matching expense.',
  })
  @ApiOkResponse({ type: ExpenseListDto })
  @ApiAuth(400)
  async listExpenses(@Query() query: ListExpensesQuery): Promise<ExpenseListDto> {
    const { rows, total, totalPaise } = await this.expenses.list(query);
    return {
      success: true,
      expenses: rows.map((r) => toExpenseResponse(r.expense, r.recorderName)),
      pagination: { page: query.page, limit: query.limit, total },
      totalAmount: toRupees(totalPaise),
    };
  }

  @Post()
  @Allow('expenses.record')
  @ApiOperation({
    summary: 'Record an expense (manager or treasurer; admin passes); the caller becomes its owner',
    description:
      '`category` must be one of the configured expense categories. 409 when the month of `date` has been ' +
      'closed (its bill is frozen).',
  })
  @ApiCreatedResponse({ type: ExpenseEnvelopeDto })
  @ApiRoleAuth(400, [409, MONTH_CLOSED])
  async createExpense(
    @CurrentUser() caller: CurrentMember,
    @Body() body: CreateExpenseDto,
  ): Promise<ExpenseEnvelopeDto> {
    const { expense, recorderName } = await this.expenses.record(caller, body);
    return { success: true, expense: toExpenseResponse(expense, recorderName) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read one expense' })
  @ApiOkResponse({ type: ExpenseEnvelopeDto })
  @ApiAuth(400, [404, 'Expense not found'])
  async getExpense(@Param('id', IdPipe) id: string): Promise<ExpenseEnvelopeDto> {
    const { expense, recorderName } = await this.expenses.get(id);
    return { success: true, expense: toExpenseResponse(expense, recorderName) };
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Replace an expense (its recorder, or an admin)',
    description:
      'A full replacement with the same fields and rules as POST; an omitted `description` becomes empty. ' +
      'Anyone else gets 403. 409 when the old or the new month has been closed.',
  })
  @ApiOkResponse({ type: ExpenseEnvelopeDto })
  @ApiAuth(
    400,
    [403, 'You can only change your own expenses'],
    [404, 'Expense not found'],
    [409, MONTH_CLOSED],
  )
  async replaceExpense(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
    @Body() body: UpdateExpenseDto,
  ): Promise<ExpenseEnvelopeDto> {
    const { expense, recorderName } = await this.expenses.replace(caller, id, body);
    return { success: true, expense: toExpenseResponse(expense, recorderName) };
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Delete an expense (its recorder, or an admin)',
    description: 'Anyone else gets 403. 409 when its month has been closed.',
  })
  @ApiOkResponse({ type: ExpenseDeletedDto })
  @ApiAuth(
    400,
    [403, 'You can only change your own expenses'],
    [404, 'Expense not found'],
    [409, MONTH_CLOSED],
  )
  async deleteExpense(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
  ): Promise<ExpenseDeletedDto> {
    await this.expenses.remove(caller, id);
    return { success: true, message: 'Expense deleted' };
  }
}
