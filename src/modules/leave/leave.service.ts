import { Database } from '../../database/database';
import { inTransaction } from '../../database/transactions';
import { Injectable, Logger } from '@nestjs/common';
import type { CurrentMember } from '../../common/auth/auth.decorators';
import { conflict } from '../../common/errors/api-error';
import { Clock } from '../../common/time/clock';
import { AppConfig } from '../../config/app-config';
import { BillingService } from '../billing';
import { MessConfigService } from '../mess-config';
import { UsersService } from '../users';
import { CreateLeaveDto, ListLeavesQuery } from './dto/leave.requests';
import { closedMonthError, LEAVE_OVERLAPS } from './leave.errors';
import { type Decided, LeaveDecisionsService } from './leave-decisions.service';
import {
  asksForAnother,
  assertMayTakeLeave,
  capWindow,
  checkMonthlyCap,
  checkRequest,
  firstAndLastMeals,
  listScope,
  monthsOf,
} from './leave-policy';
import { type LeaveListRow, LeaveRecords, type LeaveRow } from '../leave-calendar';

/** Asking for leave (checked against the policy, approved at once where it says so) and listing it. */
@Injectable()
export class LeaveService {
  private readonly logger = new Logger(LeaveService.name);

  constructor(
    private readonly records: LeaveRecords,
    // Leave opens its own transactions (run again whole after a deadlock); the records take them.
    private readonly database: Database,
    private readonly decisions: LeaveDecisionsService,
    private readonly billing: BillingService,
    private readonly messConfig: MessConfigService,
    private readonly users: UsersService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  async create(caller: CurrentMember, body: CreateLeaveDto): Promise<LeaveRow> {
    const userId = body.userId ?? caller.id;
    const forAnother = asksForAnother(caller, userId);
    if (forAnother) assertMayTakeLeave((await this.users.statusesOf([userId])).get(userId));
    const { mealTimes, leavePolicy: policy } = await this.messConfig.settings();
    const meals = firstAndLastMeals(mealTimes);
    const startMeal = body.startMealType
      ? await this.messConfig.assertMealType(body.startMealType, 'startMealType')
      : meals.first;
    const endMeal = body.endMealType
      ? await this.messConfig.assertMealType(body.endMealType, 'endMealType')
      : meals.last;
    const now = this.clock.now();
    const { startsAt, endsAt, days, approveNow } = checkRequest(
      { startDate: body.startDate, endDate: body.endDate, startMeal, endMeal },
      policy,
      { forAnother, now, timeZone: this.config.messTimezone },
    );
    const [closed] = await this.billing.closedAmong(monthsOf(body));
    if (closed) throw closedMonthError(closed);

    const { row, turnedAbsent } = await inTransaction(this.database.db, async (tx): Promise<Decided> => {
      // Two requests of one member take turns here, so the second sees the first: overlap and cap hold under races.
      await this.records.lockMember(tx, userId, 'exclusive');
      if ((await this.records.activeOverlapping(userId, startsAt, endsAt, tx)).length) {
        throw conflict(LEAVE_OVERLAPS);
      }
      const counted = capWindow(policy, body);
      if (counted) {
        const existing = await this.records.activeBetweenDates(userId, counted.from, counted.to, tx);
        checkMonthlyCap(policy, body, existing);
      }
      const inserted = await this.records.insert(
        {
          userId,
          startDate: body.startDate,
          endDate: body.endDate,
          startMealType: startMeal.name,
          endMealType: endMeal.name,
          startsAt,
          endsAt,
          days,
          reason: body.reason ?? '',
          status: approveNow ? 'approved' : 'pending',
          requestedBy: caller.id,
          decidedBy: forAnother ? caller.id : null,
          decidedAt: approveNow ? now : null,
        },
        tx,
      );
      return this.decisions.recordRequest(tx, inserted, mealTimes, caller.id);
    });
    this.logger.log({ leaveId: row.id, userId, by: caller.id, status: row.status }, 'Leave asked for');
    if (approveNow) this.decisions.announce(row, turnedAbsent, caller.id);
    return row;
  }

  /** Members see their own leave; managers and admins everyone's. */
  list(caller: CurrentMember, query: ListLeavesQuery): Promise<{ rows: LeaveListRow[]; total: number }> {
    return this.records.list({
      ...listScope(caller, query),
      status: query.status,
      limit: query.limit,
      offset: (query.page - 1) * query.limit,
    });
  }

  fullNameOf(userId: string): Promise<string | null> {
    return this.records.fullNameOf(userId);
  }
}
