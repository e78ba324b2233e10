/**
 * One module's records of one member in the mess the call runs in, a page at a time (extension 2.3, the export):
 * each module pages its own tables through its own public reader, in the shapes of its routes, so the export holds
 * only one page of one module in memory at a time.
 */
export interface MemberRecordsPage<T> {
  records: T[];
  /** The cursor of the next page (the last row's id, rows in id order); undefined on the last page. */
  next: string | undefined;
}

/** Rows per page of a member's records. */
export const MEMBER_PAGE_SIZE = 500;

/** A page of rows fetched with one row more than `limit`, mapped to records. */
export function memberRecordsPage<T extends { id: string }, R>(
  rows: T[],
  limit: number,
  toRecord: (rows: T[]) => R[],
): MemberRecordsPage<R> {
  const page = rows.slice(0, limit);
  return { records: toRecord(page), next: rows.length > limit ? page[page.length - 1].id : undefined };
}
