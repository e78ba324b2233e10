import { type AnyColumn, type SQL, sql } from 'drizzle-orm';

/**
 * Sets of ids as ONE array parameter. `inArray(column, ids)` sends one bind parameter per id, and PostgreSQL parses
 * and plans a statement of 2,000 parameters on every call (a bill lists every active member): measured at 5–20 ms
 * on the server. An array literal is one text parameter, cast in the statement, on both drivers.
 */
const arrayLiteral = (values: readonly (string | number)[]): string => `{${values.join(',')}}`;

/** `$1::uuid[]` — a malformed id fails the cast (SQLSTATE 22P02, a 400), it cannot change the statement. */
export const uuidArray = (ids: readonly string[]): SQL => sql`${arrayLiteral(ids)}::uuid[]`;

export const intArray = (values: readonly number[]): SQL => sql`${arrayLiteral(values)}::int[]`;

/** `column = any($1::uuid[])`: the condition `inArray` would build, with one parameter. */
export const isAnyUuid = (column: AnyColumn, ids: readonly string[]): SQL =>
  sql`${column} = any(${uuidArray(ids)})`;

/** An element of an array literal, quoted: any text (quotes and backslashes escaped), or NULL. */
const quoted = (value: string | null): string =>
  value === null ? 'NULL' : `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** `$1::text[]` (or another element type) from any strings and nulls: one parameter, whatever the strings hold. */
export const textArray = (values: readonly (string | null)[], type: 'text' | 'uuid' = 'text'): SQL =>
  sql`${`{${values.map(quoted).join(',')}}`}::${sql.raw(type)}[]`;
