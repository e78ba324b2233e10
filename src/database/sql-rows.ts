import { getTableColumns, type Table } from 'drizzle-orm';

/** The rows of a raw `execute`: node-postgres answers `{rows}`, PGlite too; both through Drizzle's execute. */
export function rowsOf<T>(result: unknown): T[] {
  return ((result as { rows?: T[] }).rows ?? (result as T[])) as T[];
}

/**
 * A raw row of `table` (its columns by their database names, as a raw `execute` answers them) as Drizzle's select
 * would map it: each column's own driver mapping (a timestamp's text to a Date), null kept as null.
 */
export function fromDriverRow<T extends Table>(table: T, raw: Record<string, unknown>): T['$inferSelect'] {
  const row: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const value = raw[column.name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as T['$inferSelect'];
}
