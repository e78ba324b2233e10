import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ApiError } from '../../common/errors/api-error';
import { DomainEventBus } from '../../common/events/domain-event-bus';
import type { PaymentEvent } from '../../common/events/event-map';
import type { DbOrTx } from '../../database/database';
import { AuditTrail, type AuditEntry } from '../audit-trail';
import type { AccountEntryRow, NewAccountEntryRow, PaymentMethod } from './accounts.schema';
import { entrySnapshot } from './entry-snapshot';
import { AccountsRepository } from './accounts.repository';
import { PaymentsRepository, type ReferenceRow } from './payments.repository';
import type { ReferenceSource } from './payments.schema';

/** A payment to record from outside: the entry, where it came from, and the references it holds once. */
export interface OutsidePayment {
  entry: NewAccountEntryRow & { id: string; amountPaise: number; userId: string; date: string };
  source: ReferenceSource;
  sourceId: string;
  references: string[];
  actorId: string | null;
}

/** An outside payment of `amountPaise` to `userId`: a `payment` credit with a new id, from `source`. */
export function outsidePayment(p: {
  userId: string;
  amountPaise: number;
  date: string;
  method: PaymentMethod;
  reference: string;
  note?: string | null;
  source: ReferenceSource;
  sourceId: string;
  references: string[];
  actorId: string | null;
}): OutsidePayment {
  return {
    entry: {
      id: randomUUID(),
      userId: p.userId,
      kind: 'payment',
      direction: 'credit',
      amountPaise: p.amountPaise,
      date: p.date,
      method: p.method,
      reference: p.reference,
      note: p.note ?? null,
      recordedBy: p.actorId,
    },
    source: p.source,
    sourceId: p.sourceId,
    references: p.references,
    actorId: p.actorId,
  };
}

/**
 * Records payments that arrive from outside (a claim, a statement line, the gateway) once each: a payment's
 * references (UTR, gateway payment id) go into `payment_references` in the transaction that records its entry, and
 * the unique key decides between repeats, however they race. Then the receipts' events.
 */
@Injectable()
export class PaymentRecorder {
  constructor(
    private readonly repository: PaymentsRepository,
    private readonly accounts: AccountsRepository,
    private readonly audit: AuditTrail,
    private readonly events: DomainEventBus,
  ) {}

  /**
   * Inserts the payment's references, then (when every one was new) its entry and audit row, in `tx`. Undefined,
   * recording nothing, when a reference is already held: by a payment recorded before, or by one being recorded by
   * a transaction still running (the insert waits for it).
   */
  async recordOnce(tx: DbOrTx, payment: OutsidePayment): Promise<AccountEntryRow | undefined> {
    const [entry] = await this.recordMany(tx, [payment]);
    return entry;
  }

  /** `recordOnce` for many payments in a few statements; answers the entries recorded. */
  async recordMany(tx: DbOrTx, payments: OutsidePayment[]): Promise<AccountEntryRow[]> {
    if (!payments.length) return [];
    const refs: ReferenceRow[] = payments.flatMap((p) =>
      p.references.map((reference) => ({
        reference,
        entryId: p.entry.id,
        source: p.source,
        sourceId: p.sourceId,
      })),
    );
    const inserted = await this.repository.insertReferences(tx, refs);
    const whole = payments.filter((p) => p.references.every((r) => inserted.has(r)));
    if (whole.length < payments.length && payments.some((p) => p.references.some((r) => inserted.has(r)))) {
      // A payment with one reference new and another held (a gateway payment whose UPI reference a statement
      // recorded): it is recorded already. Its new references go back out of the table with the transaction.
      const partial = payments.filter((p) => !whole.includes(p) && p.references.some((r) => inserted.has(r)));
      if (partial.length) throw new PartlyRecorded();
    }
    const entries = await this.repository.insertEntries(
      tx,
      whole.map((p) => p.entry),
    );
    const sources = new Map(whole.map((p) => [p.entry.id, p]));
    await this.audit.recordMany(
      tx,
      entries.map((entry): AuditEntry => {
        const p = sources.get(entry.id)!;
        return {
          actorId: p.actorId,
          action: 'payment-recorded',
          entity: 'account',
          entityId: entry.userId,
          after: {
            ...entrySnapshot(entry),
            source: p.source,
            ...(p.source === 'claim' ? { claimId: p.sourceId } : {}),
            ...(p.source === 'statement' ? { statementLine: p.sourceId } : {}),
            ...(p.source === 'gateway' ? { gatewayPaymentId: p.sourceId } : {}),
          },
        };
      }),
    );
    return entries;
  }

  /**
   * Promises the receipts of `entries` in `tx`, the transaction that recorded them (the outbox): one
   * `account.payment-recorded` event for one payment, one `account.payments-recorded` for several (their receipts
   * queued in batches), each with the member's balance right after, as `tx` sees it.
   */
  async promiseReceipts(
    tx: DbOrTx,
    entries: readonly AccountEntryRow[],
    actorOf: (entry: AccountEntryRow) => string,
  ): Promise<void> {
    if (!entries.length) return;
    const balances = await this.accounts.balancesOf(
      entries.map((e) => e.userId),
      tx,
    );
    const events = entries.map((entry) =>
      this.paymentEvent(entry, balances.get(entry.userId) ?? 0, actorOf(entry)),
    );
    if (events.length === 1) await this.events.publishWithin(tx, 'account.payment-recorded', events[0]);
    else await this.events.publishWithin(tx, 'account.payments-recorded', { payments: events });
  }

  paymentEvent(entry: AccountEntryRow, balancePaise: number, actorId: string): PaymentEvent {
    return {
      entryId: entry.id,
      userId: entry.userId,
      amountPaise: entry.amountPaise,
      date: entry.date,
      method: entry.method ?? 'other',
      reference: entry.reference,
      balancePaise,
      actorId,
    };
  }
}

/** Thrown inside a transaction to roll back the references a payment recorded elsewhere would have added. */
export class PartlyRecorded extends ApiError {
  constructor() {
    super(200, 'Already recorded');
  }
}
