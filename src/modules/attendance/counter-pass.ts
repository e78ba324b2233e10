import { Injectable } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { FIRST_MESS_ID } from '../../common/tenancy/mess-scope';
import { AppConfig } from '../../config/app-config';

/** What a pass says: this member, this meal, valid in this window (seconds since the epoch). */
export interface PassClaims {
  userId: string;
  date: string;
  mealType: string;
  validFrom: number;
  expiresAt: number;
  /** The mess the member belonged to when it was issued: scanned in another, it is refused (extension 2.2). */
  messId: string;
}

const VERSION = 'p1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The counter's meal passes: `p1.<payload>.<signature>`, base64url, HMAC-SHA256 over the version and payload with
 * the pass key (AppConfig.passSecret, never the login token's key). Member, date, meal and validity are inside the
 * signed part, so changing any of them breaks the signature. Short: it fits a small QR code.
 */
@Injectable()
export class CounterPasses {
  constructor(private readonly config: AppConfig) {}

  issue(claims: PassClaims): string {
    const payload = Buffer.from(
      JSON.stringify([
        claims.userId,
        claims.date,
        claims.mealType,
        claims.validFrom,
        claims.expiresAt,
        claims.messId,
      ]),
    ).toString('base64url');
    return `${VERSION}.${payload}.${this.sign(`${VERSION}.${payload}`)}`;
  }

  /**
   * What a pass is at `now`: not ours (forged, tampered, malformed: nothing else is said about it), ours but not valid
   * yet (with when it becomes valid) or no longer, or valid with its claims.
   */
  check(
    pass: string,
    now: Date,
  ):
    | { status: 'invalid' }
    | { status: 'early'; validFrom: Date }
    | { status: 'expired'; expiresAt: Date }
    | { status: 'valid'; claims: PassClaims } {
    const claims = this.signedClaims(pass);
    if (!claims) return { status: 'invalid' };
    const seconds = now.getTime() / 1000;
    if (seconds < claims.validFrom) return { status: 'early', validFrom: new Date(claims.validFrom * 1000) };
    if (seconds >= claims.expiresAt)
      return { status: 'expired', expiresAt: new Date(claims.expiresAt * 1000) };
    return { status: 'valid', claims };
  }

  /** The claims of a well-formed pass we signed, whatever the time; undefined for anything else. */
  private signedClaims(pass: string): PassClaims | undefined {
    const parts = pass.split('.');
    if (parts.length !== 3 || parts[0] !== VERSION) return undefined;
    const expected = Buffer.from(this.sign(`${parts[0]}.${parts[1]}`));
    const given = Buffer.from(parts[2]);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    // Passes issued before extension 2.2 have no mess: they were the first mess's.
    if (!Array.isArray(decoded) || (decoded.length !== 5 && decoded.length !== 6)) return undefined;
    const [userId, date, mealType, validFrom, expiresAt, messId = FIRST_MESS_ID] = decoded as unknown[];
    if (typeof messId !== 'string' || !UUID.test(messId)) return undefined;
    if (typeof userId !== 'string' || !UUID.test(userId)) return undefined;
    if (typeof date !== 'string' || typeof mealType !== 'string') return undefined;
    if (typeof validFrom !== 'number' || typeof expiresAt !== 'number') return undefined;
    return { userId, date, mealType, validFrom, expiresAt, messId };
  }

  private sign(unsigned: string): string {
    return createHmac('sha256', this.config.passSecret).update(unsigned).digest('base64url');
  }
}
