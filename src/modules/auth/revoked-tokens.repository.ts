import { Injectable } from '@nestjs/common';
import { eq, lt } from 'drizzle-orm';
import { Database } from '../../database/database';
import { revokedTokens } from './auth.schema';

@Injectable()
export class RevokedTokensRepository {
  constructor(private readonly database: Database) {}

  async isRevoked(jti: string): Promise<boolean> {
    const rows = await this.database.db
      .select({ jti: revokedTokens.jti })
      .from(revokedTokens)
      .where(eq(revokedTokens.jti, jti))
      .limit(1);
    return rows.length > 0;
  }

  /** Idempotent: logging out twice with one token is fine. */
  async revoke(jti: string, userId: string, expiresAt: Date): Promise<void> {
    await this.database.db.insert(revokedTokens).values({ jti, userId, expiresAt }).onConflictDoNothing();
  }

  async purgeExpired(now: Date): Promise<number> {
    const rows = await this.database.db
      .delete(revokedTokens)
      .where(lt(revokedTokens.expiresAt, now))
      .returning({ jti: revokedTokens.jti });
    return rows.length;
  }
}
