import { Injectable } from '@nestjs/common';
import { entrySnapshot } from './entry-snapshot';
import { badRequest, conflict, notFound, unprocessable } from '../../common/errors/api-error';
import { DomainEventBus } from '../../common/events/domain-event-bus';
import type { IdempotencyScope } from '../../common/http/idempotency-key';
import type { DbOrTx } from '../../database/database';
import { AuditTrail } from '../audit-trail';
import { AccountErrors } from './accounts.errors';
import { AccountsQueries } from './accounts.queries';
import { AccountsRepository } from './accounts.repository';
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

/** What the stored answer of an idempotent payment holds: enough to give the first answer again. */
interface StoredAnswer {
  entryId: string;
  balancePaise: number;
}

/**
 * The entries recorded by hand: payments, adjustments, openings and reversals, each appended (never changed) with
 * its audit row in one transaction. A month's charges are posted by the close instead (AccountsService).
 */
@Injectable()
export class LedgerService {
  constructor(
    private readonly repository: AccountsRepository,
    private readonly queries: AccountsQueries,
    private readonly audit: AuditTrail,
    private readonly events: DomainEventBus,
  ) {}

  /** With an Idempotency-Key, a repeat gives the first answer and records nothing (422 for another body). */
  async recordPayment(
    actorId: string,
    userId: string,
    input: PaymentInput,
    idempotency?: IdempotencyScope,
  ): Promise<EntryResult> {
    if (input.date > this.queries.today())
      throw badRequest('Validation failed', [{ field: 'date', message: 'date must not be in the future' }]);
    const result = await this.repository.transaction(async (tx) => {
      if (idempotency && !(await this.repository.claimKey(tx, idempotency)))
        return this.replay(tx, idempotency);
      await this.queries.holderName(userId, tx);
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
      // The receipt is promised with the payment (the outbox): not for a replayed repeat.
      await this.events.publishWithin(tx, 'account.payment-recorded', {
        entryId: entry.id,
        userId,
        amountPaise: entry.amountPaise,
        date: entry.date,
        method: input.method,
        reference: entry.reference,
        balancePaise,
        actorId,
      });
      return { entry, balancePaise, replayed: false };
    });
    return result;
  }

  recordAdjustment(actorId: string, userId: string, input: NoteInput): Promise<EntryResult> {
    return this.record(userId, {
      userId,
      kind: 'adjustment',
      direction: input.direction,
      amountPaise: input.amountPaise,
      date: this.queries.today(),
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
        date: this.queries.today(),
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
        date: this.queries.today(),
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
      await this.queries.holderName(userId, tx);
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
      after: entrySnapshot(entry),
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
}
