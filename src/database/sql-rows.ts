/** The rows of a raw `execute`: node-postgres answers `{rows}`, PGlite too; both through Drizzle's execute. */
export function rowsOf<T>(result: unknown): T[] {
  return ((result as { rows?: T[] }).rows ?? (result as T[])) as T[];
}
