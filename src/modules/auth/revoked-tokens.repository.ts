import { Injectable } from '@nestjs/common';
import { eq, lt, sql } from 'drizzle-orm';
import { Database } from '../../database/database';
import { tokenHolders } from '../users';
import type { Role, UserStatus } from '../../common/auth/roles';
import { revokedTokens } from './auth.schema';

export interface TokenHolder {
  id: string;
  email: string;
  fullName: string;
  role: Role;
  status: UserStatus;
  messId: string;
  tokenVersion: number;
  revoked: boolean;
}

@Injectable()
export class RevokedTokensRepository {
  private readonly holderQuery;

  constructor(private readonly database: Database) {
    this.holderQuery = this.prepareHolderQuery();
  }

  /**
   * The member a token names and whether that token was revoked, in one prepared round trip: this runs on every
   * authenticated request. (Auth reads the users module's read-only `tokenHolders` relation here, for that reason.)
   */
  private prepareHolderQuery() {
    return this.database.db
      .select({
        id: tokenHolders.id,
        email: tokenHolders.email,
        fullName: tokenHolders.fullName,
        role: tokenHolders.role,
        status: tokenHolders.status,
        messId: tokenHolders.messId,
        tokenVersion: tokenHolders.tokenVersion,
        revoked: sql<boolean>`exists (select 1 from ${revokedTokens} where ${revokedTokens.jti} = ${sql.placeholder('jti')})`,
      })
      .from(tokenHolders)
      .where(eq(tokenHolders.id, sql.placeholder('userId')))
      .prepare('auth_token_holder');
  }

  async tokenHolder(userId: string, jti: string): Promise<TokenHolder | undefined> {
    const [row] = await this.holderQuery.execute({ userId, jti });
    return row;
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
