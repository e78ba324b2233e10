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

/** Maps an integrity or input violation reported by PostgreSQL to a 4xx; undefined for anything else. */
export function translateDatabaseError(error: unknown): ApiError | undefined {
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
