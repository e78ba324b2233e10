import * as bcrypt from 'bcrypt';
import { randomUUID } from 'node:crypto';
import type { Db } from '../../src/database/database';
// The table itself, for the tests' own setup (the users module exports no table).
import { users } from '../../src/modules/users/users.schema';
import { hs256 } from './tokens';

/**
 * Members made straight in the database, as an approved member would be after registration and approval, with no
 * HTTP, no approval round trip and one bcrypt hash per password per process (instead of a hash at registration and
 * a comparison at login for every member: ~150 ms of CPU each on the suite's 2-core machine). Shared by the e2e
 * TestApp and the medium tier. The files that are about registration, approval or login still do them over HTTP.
 */
export type MemberRole = 'student' | 'manager' | 'treasurer' | 'admin';

export interface MemberOverrides {
  email: string;
  fullName: string;
  /** As a client sends it: a bare 10-digit number or `+91-` and 10 digits; stored as E.164. */
  phone: string;
  /** Defaults to TEST_MEMBER_PASSWORD (whose hash is computed once per process). */
  password: string;
  /** The mess the member belongs to (extension 2.2); default the first mess. */
  messId: string;
}

/** The password of every fixture member that was not given one. */
export const TEST_MEMBER_PASSWORD = 'member-password-long-1';

/** bcrypt at the service's lowest (default) cost; the cost is in the hash, so the service compares it as its own. */
const BCRYPT_COST = 10;
const hashes = new Map<string, Promise<string>>();

/** The bcrypt hash of a password, computed on first use and reused for the rest of the process. */
export function passwordHash(password: string = TEST_MEMBER_PASSWORD): Promise<string> {
  let hash = hashes.get(password);
  if (!hash) {
    hash = bcrypt.hash(password, BCRYPT_COST);
    hashes.set(password, hash);
    // A failed hash is not kept.
    hash.catch(() => hashes.delete(password));
  }
  return hash;
}

let counter = 0;

/** The registration phone rule (users/phone.ts): `+91-XXXXXXXXXX` or 10 digits, stored as `+91XXXXXXXXXX`. */
function storedPhone(phone: string): string {
  const match = /^(?:\+91-?)?(\d{10})$/.exec(phone.trim());
  if (!match) throw new Error(`fixture member: ${phone} is not a phone the service accepts`);
  return `+91${match[1]}`;
}

export interface InsertedMember {
  id: string;
  email: string;
  password: string;
  fullName: string;
  role: MemberRole;
  tokenVersion: number;
  messId: string;
}

/**
 * Inserts an approved member with this role, as `POST /auth/register` then the admin's approval (and role change)
 * would leave them: the same defaults (dines, token version 0), email trimmed and lower-cased, phone in E.164.
 * It writes no audit row and publishes no event: callers that run an app say what changed (see TestApp.member).
 */
export async function insertApprovedMember(
  db: Db,
  role: MemberRole = 'student',
  overrides: Partial<MemberOverrides> = {},
): Promise<InsertedMember> {
  const n = (counter += 1);
  const email = (overrides.email ?? `${role}${n}-${Math.random().toString(36).slice(2, 8)}@test.local`)
    .trim()
    .toLowerCase();
  const password = overrides.password ?? TEST_MEMBER_PASSWORD;
  const fullName = overrides.fullName ?? `${role[0].toUpperCase()}${role.slice(1)} ${n}`;
  const [row] = await db
    .insert(users)
    .values({
      email,
      passwordHash: await passwordHash(password),
      fullName,
      collegeId: `C${n}`,
      room: `R-${n}`,
      phone: storedPhone(overrides.phone ?? `98765${String(n).padStart(5, '0')}`),
      role,
      status: 'approved',
      ...(overrides.messId ? { messId: overrides.messId } : {}),
    })
    .returning({ id: users.id, tokenVersion: users.tokenVersion, messId: users.messId });
  return { id: row.id, email, password, fullName, role, tokenVersion: row.tokenVersion, messId: row.messId };
}

/** As TokenService.issue signs one: HS256 (jsonwebtoken's claim order), valid for a week. */
export const TOKEN_LIFETIME_SECONDS = 7 * 24 * 60 * 60;

/** A token the service accepts for this member, signed as TokenService.issue signs one (no login, no bcrypt). */
export function memberToken(secret: string, member: { id: string; tokenVersion: number }): string {
  const iat = Math.floor(Date.now() / 1000);
  return hs256(
    { sub: member.id, ver: member.tokenVersion, iat, exp: iat + TOKEN_LIFETIME_SECONDS, jti: randomUUID() },
    secret,
  );
}
