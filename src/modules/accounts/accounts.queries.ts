import { Injectable } from '@nestjs/common';
import { type CurrentMember } from '../../common/auth/auth.decorators';
import { can } from '../../common/auth/permissions';
import { badRequest, forbidden, notFound } from '../../common/errors/api-error';
import { Clock } from '../../common/time/clock';
import { localParts, monthBounds, monthOf } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import type { DbOrTx } from '../../database/database';
import { UsersService } from '../users';
import { AccountErrors } from './accounts.errors';
import { AccountRow, AccountsRepository, BalanceStatus } from './accounts.repository';
import type { AccountEntryRow } from './accounts.schema';

export interface StatementLine {
  entry: AccountEntryRow;
  balancePaise: number;
}

export interface Statement {
  userId: string;
  fullName: string;
  from: string;
  to: string;
  openingPaise: number;
  lines: StatementLine[];
  closingPaise: number;
  totalDebitPaise: number;
  totalCreditPaise: number;
  /** The names of whoever recorded the entries (`recordedBy`). */
  recorders: Map<string, string>;
}

/**
 * Reading the accounts: the dues list, a member's balance and entries, statements. Balances are Σ debits − Σ
 * credits, always computed from the entries, so a balance can never disagree with them.
 */
@Injectable()
export class AccountsQueries {
  constructor(
    private readonly repository: AccountsRepository,
    private readonly users: UsersService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  accounts(
    status: BalanceStatus | undefined,
    page: number,
    limit: number,
  ): Promise<{ rows: AccountRow[]; total: number; duePaise: number; creditPaise: number }> {
    return this.repository.accounts(status, page, limit);
  }

  /** 403 unless `reader` may read the account, then 404 unless the member exists. */
  async account(
    reader: CurrentMember,
    userId: string,
    page: number,
    limit: number,
  ): Promise<{
    balancePaise: number;
    entries: AccountEntryRow[];
    total: number;
    recorders: Map<string, string>;
  }> {
    assertMayRead(reader, userId);
    // One's own account is always there to read (empty in a mess one never ate in).
    if (reader.id !== userId) await this.holderName(userId);
    const [balancePaise, { rows, total }] = [
      await this.repository.balanceOf(userId),
      await this.repository.entriesPage(userId, page, limit),
    ];
    return { balancePaise, entries: rows, total, recorders: await this.recordersOf(rows) };
  }

  /**
   * Entries dated from the first day of `fromMonth` to the last of `toMonth`, with the balance after each. `toMonth`
   * defaults to this month, `fromMonth` to `toMonth`.
   */
  async statement(
    reader: CurrentMember,
    userId: string,
    fromMonth?: string,
    toMonth?: string,
  ): Promise<Statement> {
    assertMayRead(reader, userId);
    const to = toMonth ?? monthOf(this.today());
    const from = fromMonth ?? to;
    if (from > to)
      throw badRequest('Validation failed', [{ field: 'to', message: 'to must not be before from' }]);
    const fullName = reader.id === userId ? reader.fullName : await this.holderName(userId);
    const { openingPaise, rows } = await this.repository.statement(
      userId,
      `${from}-01`,
      monthBounds(to).last,
    );
    let balance = openingPaise;
    let totalDebitPaise = 0;
    let totalCreditPaise = 0;
    const lines = rows.map((entry) => {
      if (entry.direction === 'debit') {
        balance += entry.amountPaise;
        totalDebitPaise += entry.amountPaise;
      } else {
        balance -= entry.amountPaise;
        totalCreditPaise += entry.amountPaise;
      }
      return { entry, balancePaise: balance };
    });
    return {
      userId,
      fullName,
      from,
      to,
      openingPaise,
      lines,
      closingPaise: balance,
      totalDebitPaise,
      totalCreditPaise,
      recorders: await this.recordersOf(rows),
    };
  }

  /** The names of whoever recorded these entries, in one read. */
  private recordersOf(rows: AccountEntryRow[]): Promise<Map<string, string>> {
    const ids = [...new Set(rows.flatMap((r) => (r.recordedBy ? [r.recordedBy] : [])))];
    return ids.length ? this.users.namesOf(ids) : Promise.resolve(new Map());
  }

  /**
   * The name of the account's member; 404 unless the account is this mess's (its member, or anyone with entries in
   * it: a member of another mess is not found here). `tx`: the caller's transaction.
   */
  async holderName(userId: string, tx?: DbOrTx): Promise<string> {
    const name = await this.repository.holderName(userId, tx);
    if (name === undefined) throw notFound(AccountErrors.memberNotFound);
    return name;
  }

  /** Today in the mess's time zone: what entries are dated and statements default to. */
  today(): string {
    return localParts(this.clock.now(), this.config.messTimezone).date;
  }
}

/** Treasurers and admins read every account; anyone else only their own. */
function assertMayRead(reader: CurrentMember, userId: string): void {
  if (reader.id !== userId && !can(reader, 'accounts.manage')) throw forbidden(AccountErrors.notYours);
}
