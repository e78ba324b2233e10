import { HttpStatus } from '@nestjs/common';
import { ApiError } from './api-error';

interface PgLikeError {
  code?: string;
  message?: string;
  constraint?: string;
  constraint_name?: string;
}

const constraintMessages = new Map<string, { status: number; message: string }>();

/**
 * Modules name the answer for a violation of their own constraints once, beside their schema;
 * the exception filter turns any such violation into that answer instead of a 500.
 */
export function describeConstraint(constraint: string, status: number, message: string): void {
  constraintMessages.set(constraint, { status, message });
}

/** Finds the PostgreSQL error under a driver or Drizzle wrapper (Drizzle puts it in `cause`). */
function findPgError(error: unknown): PgLikeError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth += 1) {
    const candidate = current as PgLikeError & { cause?: unknown };
    if (typeof candidate.code === 'string' && /^[0-9A-Z]{5}$/.test(candidate.code)) return candidate;
    current = candidate.cause;
  }
  return undefined;
}

export const DATABASE_UNAVAILABLE = 'Database unavailable';
/** What a 503 `Database unavailable` tells the client to wait (Retry-After, seconds). */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/** 503 `Database unavailable` with Retry-After: the database refused, dropped, or did not answer in time. */
export class DatabaseUnavailableError extends ApiError {
  readonly retryAfter = DATABASE_RETRY_AFTER_SECONDS;
  constructor() {
    super(HttpStatus.SERVICE_UNAVAILABLE, DATABASE_UNAVAILABLE);
  }
}

/** Socket-level failures reaching the server (Node's error codes). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/**
 * SQLSTATEs that mean "the database cannot serve now", not "this request is wrong": class 08 (connection
 * exception), 53300 too many connections, 57014 statement timeout / cancel, 57P01-57P03 shutdown or starting up,
 * 25006 a write refused by a read-only server (a standby: the primary changed under the connection in a failover, or
 * a restarted primary still in recovery). The statement wrote nothing, so the client may send it again.
 */
const UNAVAILABLE_STATES = /^(08...|25006|53300|57014|57P0[123])$/;
/**
 * What node-postgres and its pool say when the server is silent or gone (they set no code): the client-side query
 * deadline (query_timeout), a checkout or connection timeout, a connection dropped or destroyed; and PGlite closed.
 */
const UNAVAILABLE_MESSAGES =
  /^(Query read timeout|timeout exceeded when trying to connect|Connection terminated( unexpectedly| due to connection timeout)?|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|Cannot use a pool after calling end on the pool|PGlite is closed)\b/;

/**
 * Whether the error (under any Drizzle or driver wrapper) says the database is unreachable or silent rather than
 * that the request broke a rule. Such errors answer 503 `Database unavailable`, never 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth += 1) {
    const candidate = current as { code?: unknown; message?: unknown; name?: unknown; cause?: unknown };
    if (candidate.name === 'DatabaseTimeoutError') return true;
    if (typeof candidate.code === 'string') {
      if (NETWORK_CODES.has(candidate.code) || UNAVAILABLE_STATES.test(candidate.code)) return true;
    }
    if (typeof candidate.message === 'string' && UNAVAILABLE_MESSAGES.test(candidate.message)) return true;
    current = candidate.cause;
  }
  return false;
}

/**
 * Maps a database error to its answer: 503 when the database is unavailable (see isDatabaseUnavailable), a 4xx for
 * an integrity or input violation reported by PostgreSQL; undefined for anything else.
 */
export function translateDatabaseError(error: unknown): ApiError | undefined {
  if (isDatabaseUnavailable(error)) return new DatabaseUnavailableError();
  const pg = findPgError(error);
  if (!pg?.code) return undefined;
  const constraint = pg.constraint ?? pg.constraint_name;
  const known = constraint ? constraintMessages.get(constraint) : undefined;
  if (known) return new ApiError(known.status, known.message);
  // Our own triggers raise SQLSTATE MS<status> with a message written for the client (e.g. MS409: month closed).
  const raised = /^MS([45]\d\d)$/.exec(pg.code);
  if (raised && pg.message) return new ApiError(Number(raised[1]), pg.message);
  switch (pg.code) {
    case '23505':
      return new ApiError(HttpStatus.CONFLICT, 'A record with these values already exists');
    case '23503':
      return new ApiError(HttpStatus.NOT_FOUND, 'A referenced record does not exist');
    case '23514':
    case '23502':
      return new ApiError(HttpStatus.BAD_REQUEST, 'The values break a rule of the data');
    case '22P02':
    case '22007':
    case '22008':
    case '22003':
    case '22001':
      return new ApiError(HttpStatus.BAD_REQUEST, 'A value has the wrong format or is out of range');
    // The field validators refuse these first; this is the net for a path that has none (e.g. a NUL in text).
    case '22021': // character_not_in_repertoire: a NUL byte or invalid UTF-8
    case '22P05': // untranslatable_character
      return new ApiError(HttpStatus.BAD_REQUEST, 'A value contains characters that cannot be stored');
    case '40001':
    case '40P01':
      return new ApiError(HttpStatus.CONFLICT, 'The record was changed at the same time; try again');
    default:
      return undefined;
  }
}

/** The SQLSTATE of the PostgreSQL error under any wrapper; undefined when the error did not come from the database. */
export function databaseErrorCode(error: unknown): string | undefined {
  return findPgError(error)?.code;
}

/** The unique constraint (index) a write broke, or undefined when the error is not a unique violation. */
export function violatedUniqueConstraint(error: unknown): string | undefined {
  const pg = findPgError(error);
  return pg?.code === '23505' ? (pg.constraint ?? pg.constraint_name) : undefined;
}

export function isUniqueViolation(error: unknown): boolean {
  return findPgError(error)?.code === '23505';
}
