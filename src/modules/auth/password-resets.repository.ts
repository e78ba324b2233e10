import { Injectable } from '@nestjs/common';
import { and, eq, gt, isNull, lt, or, isNotNull } from 'drizzle-orm';
import { Database, type DbOrTx } from '../../database/database';
import { passwordResetTokens } from './auth.schema';

/** The password-reset tokens (hashes only). Global: see auth.schema.ts. */
@Injectable()
export class PasswordResetsRepository {
  constructor(private readonly database: Database) {}

  async insert(tokenHash: string, userId: string, expiresAt: Date): Promise<void> {
    await this.database.db.insert(passwordResetTokens).values({ tokenHash, userId, expiresAt });
  }

  /**
   * Uses the token if it is unused and unexpired, in one statement (two resets racing with one token: one wins);
   * resolves with its member, or undefined.
   */
  async consume(tokenHash: string, now: Date, db: DbOrTx): Promise<string | undefined> {
    const [row] = await db
      .update(passwordResetTokens)
      .set({ usedAt: now })
      .where(
        and(
          eq(passwordResetTokens.tokenHash, tokenHash),
          isNull(passwordResetTokens.usedAt),
          gt(passwordResetTokens.expiresAt, now),
        ),
      )
      .returning({ userId: passwordResetTokens.userId });
    return row?.userId;
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
