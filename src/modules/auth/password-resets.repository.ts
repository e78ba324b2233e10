import { Injectable } from '@nestjs/common';
import { and, eq, gt, isNull, lt, or, isNotNull } from 'drizzle-orm';
import { Database, type DbOrTx } from '../../database/database';
import { inTransaction } from '../../database/transactions';
import { tokenHolders } from '../users';
import { passwordResetTokens } from './auth.schema';

/** The password-reset tokens (hashes only). Global: see auth.schema.ts. */
@Injectable()
export class PasswordResetsRepository {
  constructor(private readonly database: Database) {}

  async insert(
    tokenHash: string,
    userId: string,
    expiresAt: Date,
    db: DbOrTx = this.database.db,
  ): Promise<void> {
    await db.insert(passwordResetTokens).values({ tokenHash, userId, expiresAt });
  }

  /** One transaction, run again whole after a deadlock or a serialisation failure (`inTransaction`). */
  transaction<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
    return inTransaction(this.database.db, work);
  }

  /**
   * Uses the token if it is unused and unexpired, in one statement (two resets racing with one token: one wins);
   * resolves with its member and the member's mess, or undefined. (Auth reads the users module's `tokenHolders` here, as for the token holder.)
   */
  async consume(
    tokenHash: string,
    now: Date,
    db: DbOrTx,
  ): Promise<{ userId: string; messId: string } | undefined> {
    const [row] = await db
      .update(passwordResetTokens)
      .set({ usedAt: now })
      .from(tokenHolders)
      .where(
        and(
          eq(passwordResetTokens.tokenHash, tokenHash),
          isNull(passwordResetTokens.usedAt),
          gt(passwordResetTokens.expiresAt, now),
          eq(tokenHolders.id, passwordResetTokens.userId),
        ),
      )
      .returning({ userId: passwordResetTokens.userId, messId: tokenHolders.messId });
    return row;
  }

  /** A new password ends every other link of that member too. */
  async endOthers(userId: string, now: Date, db: DbOrTx): Promise<void> {
    await db
      .update(passwordResetTokens)
      .set({ usedAt: now })
      .where(and(eq(passwordResetTokens.userId, userId), isNull(passwordResetTokens.usedAt)));
  }

  /** Rows that can no longer be used, kept a day for the record, then gone. */
  async purge(before: Date): Promise<number> {
    const rows = await this.database.db
      .delete(passwordResetTokens)
      .where(
        or(
          lt(passwordResetTokens.expiresAt, before),
          and(isNotNull(passwordResetTokens.usedAt), lt(passwordResetTokens.usedAt, before)),
        ),
      )
      .returning({ tokenHash: passwordResetTokens.tokenHash });
    return rows.length;
  }
}
