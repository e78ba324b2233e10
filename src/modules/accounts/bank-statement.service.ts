import { Injectable } from '@nestjs/common';
import { DomainEventBus } from '../../common/events/domain-event-bus';
import { AccountsRepository } from './accounts.repository';
import { type OutsidePayment, outsidePayment, PaymentRecorder } from './payment-recorder';
import { PaymentsRepository } from './payments.repository';
import { readStatement } from './statement-csv';
import type { StatementField } from './statement-table';
import { readStatementWorkbook } from './statement-xlsx';

export interface MatchedLine {
  line: number;
  utr: string;
  amountPaise: number;
  claimId: string;
  member: { id: string; fullName: string };
}

export interface UnmatchedLine {
  line: number;
  utr: string | null;
  amountPaise: number | null;
  reason: UnmatchedReason;
  /** `amount differs`: what the claim says. */
  claimedPaise?: number;
  /** `bad row`: the first field that does not read. */
  field?: StatementField;
}

export interface StatementResult {
  /** Every transaction row read (credits, skipped rows and bad rows). */
  rows: number;
  matched: number;
  alreadyRecorded: number;
  skipped: number;
  matchedLines: MatchedLine[];
  unmatched: UnmatchedLine[];
}

export type UnmatchedReason = 'no claim' | 'amount differs' | 'bad row';

/**
 * The bank statement import (extension 2.2, and banks' own exports since "The first week"): the mess account's
 * statement, CSV text or an Excel workbook's bytes, matched to the pending claims.
 */
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
  async importStatement(actorId: string, file: string | Buffer): Promise<StatementResult> {
    const rows = typeof file === 'string' ? readStatement(file) : await readStatementWorkbook(file);
    const readable = rows.filter((r) => r.kind === 'credit');
    let unmatched: UnmatchedLine[] = [];
    let alreadyRecorded = 0;
    const { recorded, matchedLines } = await this.repository.transaction(async (tx) => {
      // From the start on each attempt (a deadlock runs the transaction again).
      unmatched = [];
      alreadyRecorded = 0;
      const lookups = await this.repository.lookUpStatement(
        tx,
        readable.map((r) => r.utr),
      );
      const seen = new Set<string>();
      const payments: (OutsidePayment & { claimId: string; line: number })[] = [];
      for (const row of rows) {
        if (row.kind === 'skipped') continue;
        if (row.kind === 'bad') {
          const { line, utr, amountPaise, field } = row;
          unmatched.push({ line, utr, amountPaise, reason: 'bad row', field });
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
            claimedPaise: claim.amountPaise,
          });
          continue;
        }
        seen.add(row.utr);
        payments.push({
          claimId: claim.id,
          line: row.line,
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
      const accepted = payments.filter((p) => byId.has(p.entry.id));
      await this.repository.acceptClaims(
        tx,
        accepted.map((p) => ({ claimId: p.claimId, entryId: p.entry.id })),
        actorId,
      );
      // One event for them all: the receipts are queued in batches, not 5,000 notifications racing for the pool.
      await this.recorder.promiseReceipts(tx, entries, () => actorId);
      const names = await this.repository.memberNamesOf(
        tx,
        accepted.map((p) => p.entry.userId),
      );
      return {
        recorded: entries,
        matchedLines: accepted.map((p): MatchedLine => ({
          line: p.line,
          utr: p.references[0],
          amountPaise: p.entry.amountPaise,
          claimId: p.claimId,
          member: { id: p.entry.userId, fullName: names.get(p.entry.userId) ?? '' },
        })),
      };
    });
    const skipped = rows.filter((r) => r.kind === 'skipped').length;
    return {
      rows: rows.length,
      matched: recorded.length,
      alreadyRecorded,
      skipped,
      matchedLines,
      unmatched,
    };
  }
}
