import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { randomUUID } from 'node:crypto';
import { CurrentMember } from '../../common/auth/auth.decorators';
import { UserRow } from '../users';
import { RevokedTokensRepository } from './revoked-tokens.repository';
import { TokenHolderCache } from './token-holder-cache';

export const TOKEN_LIFETIME_SECONDS = 7 * 24 * 60 * 60;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface TokenClaims {
  sub: string;
  jti: string;
  /** The user's token version when issued; a bump (password change, rejection) ends the token. */
  ver: number;
  iat: number;
  exp: number;
}

/** How far a token's issue time may lie ahead of this clock (replicas' clocks differ a little). */
const CLOCK_SKEW_SECONDS = 60;

/** Issues, checks and revokes the service's HS256 tokens. */
@Injectable()
export class TokenService implements OnModuleInit, OnModuleDestroy {
  /** How many checked tokens `verified` keeps (~300 bytes each), the oldest first out. */
  static readonly VERIFIED_MAX = 20_000;
  private readonly logger = new Logger(TokenService.name);
  private purgeTimer?: NodeJS.Timeout;
  /**
   * Tokens whose signature and claims were checked, by the whole token text: an HMAC and two JSON parses less on
   * every request after a member's first. Only the exact text that was verified matches, and expiry is checked on
   * every use; whether the token is revoked or its member still approved is not kept here (see authenticate).
   */
  private readonly verified = new Map<string, TokenClaims>();

  constructor(
    private readonly jwt: JwtService,
    private readonly revoked: RevokedTokensRepository,
    private readonly holders: TokenHolderCache,
  ) {}

  onModuleInit(): void {
    // Revocations only matter until the token would have expired anyway.
    this.purgeTimer = setInterval(
      () => {
        this.revoked
          .purgeExpired(new Date())
          .catch((error: unknown) => this.logger.warn({ err: error }, 'Purge failed'));
      },
      60 * 60 * 1000,
    );
    this.purgeTimer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.purgeTimer);
  }

  issue(user: UserRow): Promise<string> {
    return this.jwt.signAsync(
      { sub: user.id, ver: user.tokenVersion },
      { algorithm: 'HS256', expiresIn: TOKEN_LIFETIME_SECONDS, jwtid: randomUUID() },
    );
  }

  /** The member behind a token, or undefined when the token is not (or no longer) valid. */
  async authenticate(token: string): Promise<CurrentMember | undefined> {
    const claims = await this.claimsOf(token);
    if (!claims) return undefined;
    const user = await this.holders.holder(claims.sub, claims.jti, () =>
      this.revoked.tokenHolder(claims.sub, claims.jti),
    );
    if (!user || user.revoked || user.status !== 'approved' || user.tokenVersion !== claims.ver)
      return undefined;
    return {
      id: user.id,
      email: user.email,
      fullName: user.fullName,
      role: user.role,
      status: user.status,
      messId: user.messId,
      tokenId: claims.jti,
      tokenExpiresAt: new Date(claims.exp * 1000),
    };
  }

  /** The claims of a token we signed that has not expired; undefined for anything else. */
  private async claimsOf(token: string): Promise<TokenClaims | undefined> {
    const known = this.verified.get(token);
    if (known) {
      // As jsonwebtoken decides: valid while the current second is before `exp`.
      if (Math.floor(Date.now() / 1000) < known.exp) return known;
      this.verified.delete(token);
      return undefined;
    }
    let claims: TokenClaims;
    try {
      claims = await this.jwt.verifyAsync<TokenClaims>(token, { algorithms: ['HS256'] });
    } catch {
      return undefined;
    }
    if (
      typeof claims.sub !== 'string' ||
      !UUID.test(claims.sub) ||
      typeof claims.jti !== 'string' ||
      !UUID.test(claims.jti) ||
      typeof claims.exp !== 'number' ||
      // Signed with our secret yet not as we sign: a lifetime beyond the documented one, or issued in the future.
      typeof claims.iat !== 'number' ||
      claims.exp - claims.iat > TOKEN_LIFETIME_SECONDS ||
      claims.iat > Math.floor(Date.now() / 1000) + CLOCK_SKEW_SECONDS
    ) {
      return undefined;
    }
    if (this.verified.size >= TokenService.VERIFIED_MAX)
      this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, claims);
    return claims;
  }

  async revoke(member: CurrentMember): Promise<void> {
    await this.revoked.revoke(member.tokenId, member.id, member.tokenExpiresAt);
    await this.holders.forget([member.id]);
  }
}
