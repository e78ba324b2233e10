import { Injectable } from '@nestjs/common';
import { badRequest, conflict, notFound, unprocessable } from '../../common/errors/api-error';
import { DomainEventBus } from '../../common/events/domain-event-bus';
import { Clock } from '../../common/time/clock';
import { localParts, monthBounds } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import type { DbOrTx } from '../../database/database';
import { AuditTrail } from '../audit-trail';
import { UsersService } from '../users';
import { AccountErrors } from './accounts.errors';
import { AccountRow, AccountsRepository, BalanceStatus } from './accounts.repository';
import type { AccountEntryRow, Direction, NewAccountEntryRow, PaymentMethod } from './accounts.schema';

/** An entry just recorded (or replayed) and the member's balance right after it, in paise. */
export interface EntryResult {
  entry: AccountEntryRow;
  balancePaise: number;
  /** True when an Idempotency-Key repeat returned the first answer and recorded nothing. */
  replayed: boolean;
}

export interface PaymentInput {
  amountPaise: number;
  date: string;
  method: PaymentMethod;
  reference?: string;
  note?: string;
}

export interface NoteInput {
  direction: Direction;
  amountPaise: number;
  note: string;
}

/** A request made with an Idempotency-Key: who, which route, the key, and the body's fingerprint. */
export interface IdempotencyScope {
  callerId: string;
  route: string;
  key: string;
  fingerprint: string;
}

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
}

/** What the stored answer of an idempotent payment holds: enough to give the first answer again. */
interface StoredAnswer {
  entryId: string;
  balancePaise: number;
}

/**
 * Members' accounts: append-only entries, balances (Σ debits − Σ credits, always computed from the entries, so a
 * balance can never disagree with them), payments, adjustments, openings, reversals, and the charges a month's
 * close posts (in the closing transaction, which the billing module passes in).
 */
@Injectable()
export class AccountsService {
  constructor(
    private readonly repository: AccountsRepository,
    private readonly users: UsersService,
    private readonly audit: AuditTrail,
    private readonly events: DomainEventBus,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  // ---- recording ----

  async recordPayment(
    actorId: string,
    userId: string,
    input: PaymentInput,
    idempotency?: IdempotencyScope,
  ): Promise<EntryResult> {
    if (input.date > this.today())
      throw badRequest('Validation failed', [{ field: 'date', message: 'date must not be in the future' }]);
    const result = await this.repository.transaction(async (tx) => {
      if (idempotency && !(await this.repository.claimKey(tx, idempotency)))
        return this.replay(tx, idempotency);
      await this.assertMember(userId, tx);
      const entry = await this.repository.insert(tx, {
        userId,
        kind: 'payment',
        direction: 'credit',
        amountPaise: input.amountPaise,
        date: input.date,
        method: input.method,
        reference: input.reference ?? null,
        note: input.note ?? null,
        recordedBy: actorId,
      });
      const balancePaise = await this.repository.balanceOf(userId, tx);
      await this.recordAudit(tx, actorId, entry);
      if (idempotency) {
        const answer: StoredAnswer = { entryId: entry.id, balancePaise };
        await this.repository.saveAnswer(tx, idempotency, 201, answer);
      }
      return { entry, balancePaise, replayed: false };
    });
    if (!result.replayed) {
      this.events.publish('account.payment-recorded', {
        entryId: result.entry.id,
        userId,
        amountPaise: result.entry.amountPaise,
        date: result.entry.date,
        method: input.method,
        reference: result.entry.reference,
        balancePaise: result.balancePaise,
        actorId,
      });
    }
    return result;
  }

  recordAdjustment(actorId: string, userId: string, input: NoteInput): Promise<EntryResult> {
    return this.record(userId, {
      userId,
      kind: 'adjustment',
      direction: input.direction,
      amountPaise: input.amountPaise,
      date: this.today(),
      note: input.note,
      recordedBy: actorId,
    });
  }

  /** Once per member (409 after that, also for two racing requests: a partial unique index). */
  recordOpening(actorId: string, userId: string, input: NoteInput): Promise<EntryResult> {
    return this.record(
      userId,
      {
        userId,
        kind: 'opening',
        direction: input.direction,
        amountPaise: input.amountPaise,
        date: this.today(),
        note: input.note,
        recordedBy: actorId,
      },
      async (tx) => {
        if (await this.repository.hasOpening(userId, tx)) throw conflict(AccountErrors.openingExists);
      },
    );
  }

  /**
   * Undoes a payment, an adjustment or an opening with an entry of the same amount the other way, dated today.
   * 409 for a reversal, a month's charge (reopen the month), or an entry already reversed (a unique index on
   * `reverses` holds that under concurrent requests too).
   */
  async reverse(actorId: string, entryId: string, note: string): Promise<EntryResult> {
    const original = await this.repository.find(entryId);
    if (!original) throw notFound(AccountErrors.entryNotFound);
    if (original.kind === 'reversal') throw conflict(AccountErrors.reversalOfReversal);
    if (original.kind === 'charge') throw conflict(AccountErrors.chargeReversal);
    return this.record(
      original.userId,
      {
        userId: original.userId,
        kind: 'reversal',
        direction: original.direction === 'debit' ? 'credit' : 'debit',
        amountPaise: original.amountPaise,
        month: original.month,
        date: this.today(),
        note,
        reverses: original.id,
        recordedBy: actorId,
      },
      async (tx) => {
        if (await this.repository.reversalOf(entryId, tx)) throw conflict(AccountErrors.alreadyReversed);
      },
    );
  }

  private async record(
    userId: string,
    entry: NewAccountEntryRow,
    check?: (tx: DbOrTx) => Promise<void>,
  ): Promise<EntryResult> {
    return this.repository.transaction(async (tx) => {
      await this.assertMember(userId, tx);
      await check?.(tx);
      const row = await this.repository.insert(tx, entry);
      await this.recordAudit(tx, entry.recordedBy ?? null, row);
      return { entry: row, balancePaise: await this.repository.balanceOf(userId, tx), replayed: false };
    });
  }

  /**
   * The audit row of an entry recorded by hand, in its transaction: entity `account`, the member's id, the entry as
   * recorded (paise). A month's charges and their reversals are audited once per close or reopen (entity `month`).
   */
  private recordAudit(tx: DbOrTx, actorId: string | null, entry: AccountEntryRow): Promise<void> {
    return this.audit.record(tx, {
      actorId,
      action: entry.kind === 'reversal' ? 'reversed' : `${entry.kind}-recorded`,
      entity: 'account',
      entityId: entry.userId,
      after: {
        entryId: entry.id,
        kind: entry.kind,
        direction: entry.direction,
        amountPaise: entry.amountPaise,
        date: entry.date,
        method: entry.method,
        reference: entry.reference,
        note: entry.note,
        reverses: entry.reverses,
      },
    });
  }

  /** The first answer to this key, or 422 when the key came with another body. */
  private async replay(tx: DbOrTx, scope: IdempotencyScope): Promise<EntryResult> {
    const stored = await this.repository.findKey(tx, scope);
    if (!stored || stored.fingerprint !== scope.fingerprint) throw unprocessable(AccountErrors.keyReused);
    const answer = stored.response as StoredAnswer;
    const entry = await this.repository.find(answer.entryId, tx);
    return { entry: entry!, balancePaise: answer.balancePaise, replayed: true };
  }

  // ---- posting by the month's close and reopen (inside the billing module's transaction) ----

  /** One `charge` per member, dated `date` (the month's last day), in the closing transaction `tx`. */
  async postMonthCharges(
    tx: DbOrTx,
    posting: {
      month: string;
      date: string;
      actorId: string;
      charges: { userId: string; amountPaise: number }[];
    },
  ): Promise<number> {
    return this.repository.insertMany(
      tx,
      posting.charges.map((c) => ({
        userId: c.userId,
        kind: 'charge' as const,
        direction: 'debit' as const,
        amountPaise: c.amountPaise,
        month: posting.month,
        date: posting.date,
        recordedBy: posting.actorId,
      })),
    );
  }

  /** A `reversal` of each of the month's standing charges, dated like them, in the reopening transaction `tx`. */
  async reverseMonthCharges(
    tx: DbOrTx,
    posting: { month: string; date: string; actorId: string },
  ): Promise<{ count: number; paise: number }> {
    const charges = await this.repository.standingCharges(tx, posting.month);
    const count = await this.repository.insertMany(
      tx,
      charges.map((c) => ({
        userId: c.userId,
        kind: 'reversal' as const,
        direction: 'credit' as const,
        amountPaise: c.amountPaise,
        month: posting.month,
        date: posting.date,
        note: `Month ${posting.month} reopened`,
        reverses: c.id,
        recordedBy: posting.actorId,
      })),
    );
    return { count, paise: charges.reduce((sum, c) => sum + c.amountPaise, 0) };
  }

  // ---- reading ----

  async accounts(
    status: BalanceStatus | undefined,
    page: number,
    limit: number,
  ): Promise<{ rows: AccountRow[]; total: number; duePaise: number; creditPaise: number }> {
    return this.repository.accounts(status, page, limit);
  }

  async account(
    userId: string,
    page: number,
    limit: number,
  ): Promise<{ balancePaise: number; entries: AccountEntryRow[]; total: number }> {
    await this.assertMember(userId);
    const [balancePaise, { rows, total }] = [
      await this.repository.balanceOf(userId),
      await this.repository.entriesPage(userId, page, limit),
    ];
    return { balancePaise, entries: rows, total };
  }

  /** Entries dated from the first day of `fromMonth` to the last of `toMonth`, with the balance after each. */
  async statement(userId: string, fromMonth: string, toMonth: string): Promise<Statement> {
    if (fromMonth > toMonth)
      throw badRequest('Validation failed', [{ field: 'to', message: 'to must not be before from' }]);
    const fullName = await this.assertMember(userId);
    const from = `${fromMonth}-01`;
    const to = monthBounds(toMonth).last;
    const { openingPaise, rows } = await this.repository.statement(userId, from, to);
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
      from: fromMonth,
      to: toMonth,
      openingPaise,
      lines,
      closingPaise: balance,
      totalDebitPaise,
      totalCreditPaise,
    };
  }

  /** Members whose balance is due, with the amount: who PAYMENT_DUE goes to. */
  dueBalances(): Promise<{ userId: string; balancePaise: number }[]> {
    return this.repository.dueBalances();
  }

  /** 404 unless the member exists; their name. */
  private async assertMember(userId: string, tx?: DbOrTx): Promise<string> {
    const name = (await this.users.namesOf([userId], tx)).get(userId);
    if (name === undefined) throw notFound(AccountErrors.memberNotFound);
    return name;
  }

  today(): string {
    return localParts(this.clock.now(), this.config.messTimezone).date;
  }
}
