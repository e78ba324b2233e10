import { parse } from 'csv-parse/sync';
import { badRequest } from '../../common/errors/api-error';
import { readStatementRows, type SheetRow, type StatementRow } from './statement-table';

export { STATEMENT_MAX_ROWS, STATEMENT_TOO_LONG, rupeesTextToPaise } from './statement-table';
export type { StatementRow } from './statement-table';
export const STATEMENT_UNREADABLE = 'The statement is not a readable CSV file';

/**
 * A bank statement's CSV (UTF-8, a BOM allowed, CRLF or LF, `,` separated, quoted fields, ragged rows) → its
 * transaction rows, each with its line in the file (see readStatementRows for the header, columns and footer).
 */
export function readStatement(text: string): StatementRow[] {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      bom: true,
      info: true,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      trim: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch {
    throw badRequest(STATEMENT_UNREADABLE);
  }
  return readStatementRows(
    records.map(({ record, info }): SheetRow => ({ line: info.lines, cells: record })),
  );
}
