import { stdSerializers } from 'pino';

/** What a log line may say about a failed query: never its SQL text or parameters (hashes, phones, emails). */
export interface LoggedError {
  type: string;
  message: string;
  code?: string;
  table?: string;
  constraint?: string;
  stack?: string;
}

interface QueryErrorLike {
  name?: string;
  message?: string;
  code?: string;
  table?: string;
  constraint?: string;
  stack?: string;
  query?: unknown;
  params?: unknown;
  cause?: unknown;
}

const MESSAGE_MAX = 200;
const isSqlState = (code: unknown): code is string => typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);

/** The driver's error under Drizzle's wrapper, if the chain holds a database error at all. */
function databaseErrorIn(error: unknown): { wrapper: QueryErrorLike; driver?: QueryErrorLike } | undefined {
  let current: unknown = error;
  let wrapper: QueryErrorLike | undefined;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth += 1) {
    const candidate = current as QueryErrorLike;
    if ('query' in candidate || 'params' in candidate) wrapper ??= candidate;
    if (isSqlState(candidate.code)) return { wrapper: wrapper ?? candidate, driver: candidate };
    current = candidate.cause;
  }
  return wrapper ? { wrapper } : undefined;
}

/** The stack's frames only: the first line of a stack repeats the message, which for Drizzle holds the SQL. */
const framesOf = (stack: unknown): string | undefined =>
  typeof stack === 'string'
    ? stack
        .split('\n')
        .filter((line) => line.trimStart().startsWith('at '))
        .join('\n') || undefined
    : undefined;

/**
 * pino `err` serializer (and what the exception filter logs): a database error keeps its SQLSTATE, a short message
 * from the server, table, constraint and stack frames, and loses Drizzle's "Failed query: … params: …" text, the
 * server's `detail` (which quotes values) and anything else it carried. Other errors are pino's standard shape.
 */
export function logSafeError(error: unknown): unknown {
  const found = databaseErrorIn(error);
  if (!found) {
    return error instanceof Error ? stdSerializers.err(error) : error;
  }
  const { wrapper, driver } = found;
  const message = driver?.message
    ? driver.message.split('\n')[0].slice(0, MESSAGE_MAX)
    : 'Database query failed';
  return {
    type: driver?.name ?? wrapper.name ?? 'Error',
    message,
    ...(driver?.code ? { code: driver.code } : {}),
    ...(driver?.table ? { table: driver.table } : {}),
    ...(driver?.constraint ? { constraint: driver.constraint } : {}),
    ...(framesOf(wrapper.stack) ? { stack: framesOf(wrapper.stack) } : {}),
  } satisfies LoggedError;
}
