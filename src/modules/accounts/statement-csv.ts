import { parse } from 'csv-parse/sync';
import { ApiError, badRequest } from '../../common/errors/api-error';
import { isCalendarDate } from '../../common/time/dates';

/** The most rows a statement may have (413 beyond). */
export const STATEMENT_MAX_ROWS = 5_000;
export const STATEMENT_TOO_LONG = `A statement may have at most ${STATEMENT_MAX_ROWS} rows`;
export const STATEMENT_UNREADABLE = 'The statement is not a readable CSV file';

/** A row of the statement: read (its UTR, amount and date) or not (`bad row`, with what it has). */
export type StatementRow =
  | { line: number; ok: true; utr: string; amountPaise: number; date: string }
  | { line: number; ok: false; utr: string | null; amountPaise: number | null };

const COLUMN_NAMES: Record<'date' | 'amount' | 'utr', string[]> = {
  date: ['date'],
  amount: ['amount'],
  utr: ['utr', 'reference', 'ref no'],
};

/**
 * A bank statement's CSV (UTF-8, a BOM allowed, `,` separated, quoted fields) → its rows with their line numbers.
 * The header names the columns `date`, `amount` and `utr` (or `reference` / `ref no`), ignoring case and spaces;
 * other columns are ignored. 400 naming a missing column, 413 past STATEMENT_MAX_ROWS rows.
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
  const [header, ...rows] = records;
  if (!header) throw badRequest('Validation failed', [{ field: 'date', message: 'the statement is empty' }]);
  if (rows.length > STATEMENT_MAX_ROWS) throw new ApiError(413, STATEMENT_TOO_LONG);
  const names = header.record.map((cell) => cell.trim().toLowerCase().replace(/\s+/g, ' '));
  const index = {} as Record<keyof typeof COLUMN_NAMES, number>;
  const missing: { field: string; message: string }[] = [];
  for (const [column, aliases] of Object.entries(COLUMN_NAMES) as [keyof typeof COLUMN_NAMES, string[]][]) {
    index[column] = names.findIndex((n) => aliases.includes(n));
    if (index[column] < 0)
      missing.push({ field: column, message: `the statement has no ${aliases.join(' / ')} column` });
  }
  if (missing.length) throw badRequest(`The statement has no ${missing[0].field} column`, missing);
  return rows.map(({ record, info }) => {
    const line = info.lines;
    const utr = (record[index.utr] ?? '').trim();
    const amountPaise = rupeesTextToPaise(record[index.amount] ?? '');
    const date = readDate(record[index.date] ?? '');
    if (/^[0-9]{12}$/.test(utr) && amountPaise !== undefined && amountPaise > 0 && date)
      return { line, ok: true, utr, amountPaise, date };
    return { line, ok: false, utr: utr || null, amountPaise: amountPaise ?? null };
  });
}

/** `1,23,456.50`, `₹ 2,500`, `600.5` → paise; undefined for anything else (more than two decimals included). */
export function rupeesTextToPaise(text: string): number | undefined {
  const cleaned = text
    .replace(/^\s*(₹|rs\.?|inr)?\s*/i, '')
    .replace(/,/g, '')
    .trim();
  const m = /^(\d{1,9})(?:\.(\d{1,2}))?$/.exec(cleaned);
  if (!m) return undefined;
  return Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
}

/** `YYYY-MM-DD` or `DD/MM/YYYY` → `YYYY-MM-DD` when it is a real date. */
function readDate(text: string): string | undefined {
  const value = text.trim();
  const dmy = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(value);
  const iso = dmy ? `${dmy[3]}-${dmy[2]}-${dmy[1]}` : value;
  return /^\d{4}-\d{2}-\d{2}$/.test(iso) && isCalendarDate(iso) ? iso : undefined;
}
