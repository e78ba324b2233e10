import { Injectable, Logger } from '@nestjs/common';
import { badRequest, conflict } from '../../common/errors/api-error';
import { Clock } from '../../common/time/clock';
import { AppConfig } from '../../config/app-config';
import { localParts, monthBounds, monthOf } from '../../common/time/dates';
import { AccountsService } from '../accounts';
import { AuditTrail } from '../audit-trail';
import { UsersService } from '../users';
import { BillingErrors } from './billing.errors';
import { BillingRepository } from './billing.repository';
import { BillingService, BillView, FrozenBill } from './billing.service';
import { computeShares } from './cost-shares';
import { chargeItems, type ChargeExtraItem, monthCharges } from './month-charges';
import { MonthCache } from './month-cache';

export interface MonthEvent {
  action: 'close' | 'reopen';
  at: Date;
  actorId: string | null;
  actorName: string | null;
}

export interface MonthStatus {
  month: string;
  closed: boolean;
  history: MonthEvent[];
}

export interface MonthState {
  month: string;
  closed: boolean;
  closedAt: Date | null;
  closedBy: { id: string; fullName: string } | null;
}

/**
 * Closing and reopening a month. A close freezes both methods' bills and posts each billed member's charge under
 * the mess's `chargeMethod` to the accounts, in the transaction that freezes; a reopen posts the reversals of those
 * charges in the transaction that lifts the freeze. So the charges of a month always add up to its frozen bill.
 */
@Injectable()
export class MonthClosingService {
  private readonly logger = new Logger(MonthClosingService.name);

  constructor(
    private readonly repository: BillingRepository,
    private readonly billing: BillingService,
    private readonly cache: MonthCache,
    private readonly accounts: AccountsService,
    private readonly audit: AuditTrail,
    private readonly users: UsersService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  /**
   * One transaction, on both engines, holding the month's lock and pausing expense, attendance and extras writes: the
   * bill's reads (the kept figures, which every committed write has moved and no later one can: the database refuses
   * writes into a closed month, so attendance and health figures stay those of the frozen bill), the closure with its
   * log row and the members' charges commit together. Every read runs on the transaction.
   */
  async close(month: string, actorId: string): Promise<BillView> {
    if (month > monthOf(this.billing.today())) throw badRequest(BillingErrors.notBegun);
    // A month is closed once it is over: closed earlier, its charges would need a reopen and a reversal on every
    // member's statement for the meals still to come.
    const lastMealEnd = await this.billing.lastMealEnd(month);
    if (this.clock.now() < lastMealEnd) {
      const { date, time } = localParts(lastMealEnd, this.config.messTimezone);
      throw conflict(BillingErrors.notOver(month, date, time));
    }
    // Read before the transaction: on the embedded engine a query outside it would wait for it.
    const chargeMethod = await this.billing.chargeMethod();
    const daily = await this.billing.dailyRulesIfAny();
    await this.repository.monthTransaction(month, { pauseWrites: true }, async (tx) => {
      if (await this.repository.findClosure(month, tx)) throw conflict(BillingErrors.alreadyClosed(month));
      const inputs = await this.repository.readMonth(month, tx);
      // The extras as they are now, frozen with the bill: writes of them are paused until this commits.
      const extras = await this.billing.extrasOf(month, tx);
      const names = await this.users.namesOf(
        inputs.members.map((m) => m.userId),
        tx,
      );
      // A mess with a daily rate freezes its bill too (extension 2.3): the rolls and leave as they stand now.
      const dailyBill = daily
        ? await this.billing.dailyBill(month, inputs.totalPaise, inputs.members, daily, tx)
        : undefined;
      const frozen: FrozenBill = {
        computedAt: this.clock.now().toISOString(),
        names: Object.fromEntries([...extras.names, ...(dailyBill?.names ?? []), ...names]),
        bills: {
          spec: computeShares(inputs.totalPaise, inputs.members, 'spec'),
          proportional: computeShares(inputs.totalPaise, inputs.members, 'proportional'),
          ...(dailyBill ? { daily: dailyBill.bill } : {}),
        },
        chargeMethod,
        extras: Object.fromEntries(extras.paise),
      };
      await this.repository.insertClosure(tx, month, actorId, frozen);
      // The configuration requires a daily rate of a mess that charges by it.
      const bill = chargeMethod === 'daily' ? frozen.bills.daily! : frozen.bills[chargeMethod];
      const charges = monthCharges(bill, extras.paise);
      // Each charge says what it is made of (meals × the rate, extras by item): the statement itemises it.
      const itemsOf = new Map<string, ChargeExtraItem[]>();
      for (const row of await this.billing.extraItemsOf(month, tx)) {
        itemsOf.set(row.userId, [...(itemsOf.get(row.userId) ?? []), row]);
      }
      await this.accounts.postMonthCharges(tx, {
        month,
        date: monthBounds(month).last,
        actorId,
        charges: charges.map((charge) => ({
          ...charge,
          items: chargeItems(bill, charge, itemsOf.get(charge.userId) ?? []),
        })),
      });
      await this.audit.record(tx, {
        actorId,
        action: 'closed',
        entity: 'month',
        entityId: month,
        after: {
          chargeMethod,
          totalPaise: bill.totalPaise,
          allocatedPaise: bill.allocatedPaise,
          extrasPaise: [...extras.paise.values()].reduce((sum, paise) => sum + paise, 0),
          charges: charges.length,
          chargedPaise: charges.reduce((sum, c) => sum + c.amountPaise, 0),
        },
      });
    });
    this.cache.invalidate([month]);
    this.logger.log({ month, by: actorId, chargeMethod }, 'Month closed; its bill is frozen and charged');
    return this.billing.bill(month, chargeMethod);
  }

  async reopen(month: string, actorId: string): Promise<MonthStatus> {
    const reopened = await this.repository.monthTransaction(month, { pauseWrites: false }, async (tx) => {
      if (!(await this.repository.deleteClosure(tx, month, actorId))) return false;
      const reversed = await this.accounts.reverseMonthCharges(tx, {
        month,
        date: monthBounds(month).last,
        actorId,
      });
      await this.audit.record(tx, {
        actorId,
        action: 'reopened',
        entity: 'month',
        entityId: month,
        before: { closed: true },
        after: { closed: false, chargesReversed: reversed.count, reversedPaise: reversed.paise },
      });
      return true;
    });
    if (!reopened) throw conflict(BillingErrors.notClosed(month));
    this.cache.invalidate([month]);
    this.logger.log({ month, by: actorId }, 'Month reopened; its charges are reversed');
    return this.status(month);
  }

  async status(month: string): Promise<MonthStatus> {
    const [closure, log] = await Promise.all([
      this.repository.findClosure(month),
      this.repository.closeLog(month),
    ]);
    const actorIds = [...new Set(log.flatMap((e) => (e.actorId ? [e.actorId] : [])))];
    const names = await this.users.namesOf(actorIds);
    return {
      month,
      closed: Boolean(closure),
      history: log.map((e) => ({
        action: e.action,
        at: e.at,
        actorId: e.actorId,
        actorName: (e.actorId && names.get(e.actorId)) ?? null,
      })),
    };
  }

  /** The months billing knows (computed, closed or reopened), newest first, with who closed them and when. */
  async months(page: number, limit: number): Promise<{ months: MonthState[]; total: number }> {
    // The kept figures move with every write: a month emptied (or first filled) a moment ago is listed as it is now.
    const { rows, total } = await this.repository.listMonths(page, limit);
    const names = await this.users.namesOf([
      ...new Set(rows.flatMap((r) => (r.closedBy ? [r.closedBy] : []))),
    ]);
    return {
      total,
      months: rows.map((r) => ({
        month: r.month,
        closed: r.closedAt !== null,
        closedAt: r.closedAt,
        closedBy: r.closedBy ? { id: r.closedBy, fullName: names.get(r.closedBy) ?? '' } : null,
      })),
    };
  }
}
