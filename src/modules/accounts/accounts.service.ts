import { Injectable } from '@nestjs/common';
import type { DbOrTx } from '../../database/database';
import { AccountsRepository } from './accounts.repository';
import type { ChargeItems } from './accounts.schema';

/**
 * What other modules ask of the accounts: billing posts a month's charges at its close and their reversals at its
 * reopen, inside its own transaction (so the charges always add up to the frozen bill); notifications ask who owes.
 * Entries recorded by hand are LedgerService's, reads AccountsQueries'.
 */
@Injectable()
export class AccountsService {
  constructor(private readonly repository: AccountsRepository) {}

  /** One `charge` per member, dated `date` (the month's last day), in the closing transaction `tx`. */
  async postMonthCharges(
    tx: DbOrTx,
    posting: {
      month: string;
      date: string;
      actorId: string;
      charges: { userId: string; amountPaise: number; items?: ChargeItems }[];
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
        items: c.items ?? null,
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

  /** Members whose balance is due, with the amount: who PAYMENT_DUE goes to. */
  dueBalances(): Promise<{ userId: string; balancePaise: number }[]> {
    return this.repository.dueBalances();
  }

  /** Every mess's dues (its members' positive balances added, paise), by mess id; absent where nothing is due. */
  duePerMess(): Promise<Map<string, number>> {
    return this.repository.duePerMess();
  }
}
