import { Injectable } from '@nestjs/common';
import { DomainEventBus } from '../../common/events/domain-event-bus';
import { AccountsRepository } from './accounts.repository';
import { type OutsidePayment, outsidePayment, PaymentRecorder } from './payment-recorder';
import { PaymentsRepository } from './payments.repository';
import { readStatement } from './statement-csv';

export interface StatementResult {
  rows: number;
  matched: number;
  alreadyRecorded: number;
  unmatched: { line: number; utr: string | null; amountPaise: number | null; reason: UnmatchedReason }[];
}

export type UnmatchedReason = 'no claim' | 'amount differs' | 'bad row';

/** The bank statement import (extension 2.2): the mess account's CSV export matched to the pending claims. */
@Injectable()
export class BankStatementService {
  constructor(
    private readonly repository: PaymentsRepository,
    private readonly accounts: AccountsRepository,
    private readonly recorder: PaymentRecorder,
    private readonly events: DomainEventBus,
  ) {}

  /**
   * Every row whose UTR is a pending claim of the same amount accepts that claim; one transaction, the rows matched
   * to the claims and the recorded references in one query, the payments recorded in a few statements.
   */
  async importStatement(actorId: string, csv: string): Promise<StatementResult> {
    const rows = readStatement(csv);
    const readable = rows.filter((r) => r.ok);
    const unmatched: StatementResult['unmatched'] = [];
    let alreadyRecorded = 0;
    const recorded = await this.repository.transaction(async (tx) => {
      const lookups = await this.repository.lookUpStatement(
        tx,
        readable.map((r) => r.utr),
      );
      const seen = new Set<string>();
      const payments: (OutsidePayment & { claimId: string })[] = [];
      for (const row of rows) {
        if (!row.ok) {
          unmatched.push({ line: row.line, utr: row.utr, amountPaise: row.amountPaise, reason: 'bad row' });
          continue;
        }
        const found = lookups.get(row.utr);
        if (seen.has(row.utr) || found?.recorded || found?.claim?.status === 'accepted') {
          alreadyRecorded += 1;
          continue;
        }
        const claim = found?.claim;
        if (!claim || claim.status !== 'pending') {
          unmatched.push({ line: row.line, utr: row.utr, amountPaise: row.amountPaise, reason: 'no claim' });
          continue;
        }
        if (claim.amountPaise !== row.amountPaise) {
          unmatched.push({
            line: row.line,
            utr: row.utr,
            amountPaise: row.amountPaise,
            reason: 'amount differs',
          });
          continue;
        }
        seen.add(row.utr);
        payments.push({
          claimId: claim.id,
          ...outsidePayment({
            userId: claim.userId,
            amountPaise: claim.amountPaise,
            date: claim.date,
            method: 'upi',
            reference: row.utr,
            source: 'statement',
            sourceId: `line ${row.line}`,
            references: [row.utr],
            actorId,
          }),
        });
      }
      const entries = await this.recorder.recordMany(tx, payments);
      const byId = new Set(entries.map((e) => e.id));
      alreadyRecorded += payments.length - entries.length;
      await this.repository.acceptClaims(
        tx,
        payments
          .filter((p) => byId.has(p.entry.id))
          .map((p) => ({ claimId: p.claimId, entryId: p.entry.id })),
        actorId,
      );
      return entries;
    });
    const balances = await this.accounts.balancesOf(recorded.map((e) => e.userId));
    // One event for them all: the receipts are queued in batches, not 5,000 notifications racing for the pool.
    if (recorded.length)
      this.events.publish('account.payments-recorded', {
        payments: recorded.map((entry) =>
          this.recorder.paymentEvent(entry, balances.get(entry.userId) ?? 0, actorId),
        ),
      });
    return { rows: rows.length, matched: recorded.length, alreadyRecorded, unmatched };
  }
}
