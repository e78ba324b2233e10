import { ApiError, badRequest, type FieldError } from '../../common/errors/api-error';
import { isCalendarDate } from '../../common/time/dates';

/** The most transaction rows a statement may have (413 beyond). */
export const STATEMENT_MAX_ROWS = 5_000;
export const STATEMENT_TOO_LONG = `A statement may have at most ${STATEMENT_MAX_ROWS} rows`;
/** How many lines may come before the header (a bank's preamble: account, branch, period…). */
const STATEMENT_MAX_PREAMBLE = 30;

/** A row of the file as read: its line (a CSV's line, a spreadsheet's row) and its cells as text. */
export interface SheetRow {
  line: number;
  cells: string[];
}

export type StatementField = 'date' | 'amount' | 'utr';

/**
 * A transaction row of the statement: a credit (its UTR, amount and date), skipped (a debit, or no credit), or not
 * readable (`bad`, naming the first field that does not read, with what it has).
 */
export type StatementRow =
  | { line: number; kind: 'credit'; utr: string; amountPaise: number; date: string }
  | { line: number; kind: 'skipped' }
  | { line: number; kind: 'bad'; field: StatementField; utr: string | null; amountPaise: number | null };

/** A currency suffix on a column's name (spaces removed): `(INR)`, `(INR )`, `(₹)`, `(Rs.)`, `in INR`. */
const CURRENCY_SUFFIX = /(?:\((?:inr|₹|rs\.?)\)|in(?:inr|₹|rs\.?))$/;

/**
 * A column's name as compared: lower case, without spaces, a currency suffix or a trailing dot (ICICI's
 * `Deposit Amount (INR )` is `deposit amount`).
 */
export const columnKey = (name: string): string =>
  name.toLowerCase().replace(/\s+/g, '').replace(CURRENCY_SUFFIX, '').replace(/\.$/, '');

const keys = (names: string[]) => names.map(columnKey);

/** The column names each bank uses, in order of preference (a transaction date before a value date). */
const STATEMENT_COLUMNS = {
  date: ['date', 'txn date', 'transaction date', 'tran date', 'value date'],
  credit: ['credit', 'deposit', 'deposit amt.', 'deposit amount', 'cr amount'],
  amount: ['amount', 'transaction amount(inr)'],
  type: ['cr/dr', 'type'],
  utr: ['utr', 'reference', 'ref no', 'ref no.', 'ref no./cheque no.', 'chq./ref.no.', 'cheque/ref no'],
  narration: ['description', 'narration', 'particulars', 'remarks', 'transaction remarks'],
} as const;

type Kind = keyof typeof STATEMENT_COLUMNS;
const KEYS = Object.fromEntries(
  Object.entries(STATEMENT_COLUMNS).map(([kind, names]) => [kind, keys([...names])]),
) as Record<Kind, string[]>;

/** The index of the column named by the most preferred of `kind`'s names, or -1. */
function columnOf(names: string[], kind: Kind): number {
  for (const key of KEYS[kind]) {
    const index = names.indexOf(key);
    if (index >= 0) return index;
  }
  return -1;
}

type Columns = Record<Kind, number>;

function columnsOf(cells: string[]): Columns {
  const names = cells.map(columnKey);
  return Object.fromEntries((Object.keys(KEYS) as Kind[]).map((k) => [k, columnOf(names, k)])) as Columns;
}

/** What a header lacks: a date column, an amount (or credit) column, a UTR (or narration) column. */
function missingOf(c: Columns): FieldError[] {
  const missing: FieldError[] = [];
  const list = (...kinds: Kind[]) => kinds.flatMap((k) => STATEMENT_COLUMNS[k]).join(' / ');
  if (c.date < 0) missing.push({ field: 'date', message: `the statement has no ${list('date')} column` });
  if (c.credit < 0 && c.amount < 0)
    missing.push({ field: 'amount', message: `the statement has no ${list('credit', 'amount')} column` });
  if (c.utr < 0 && c.narration < 0)
    missing.push({ field: 'utr', message: `the statement has no ${list('utr', 'narration')} column` });
  return missing;
}

const hasText = (cells: string[]) => cells.some((cell) => /[\p{L}\p{N}]/u.test(cell));

/**
 * A statement's rows (CSV lines or spreadsheet rows) → its transaction rows. The header is the first row within the
 * first 31 lines naming a date column and an amount or credit column (a bank's preamble comes before it); the rows
 * after the last one with a date (written as a date, even one that is not real) are the footer, and rows without a
 * letter or digit (separators) are not rows.
 * Only credits count: with a credit column, a row without a credit (empty or zero) is skipped; with an amount
 * column, a row typed as a debit (`Dr`, `Debit`) or with a negative amount is skipped. 400 naming each missing
 * column, 413 past STATEMENT_MAX_ROWS transaction rows.
 */
export function readStatementRows(rows: SheetRow[]): StatementRow[] {
  const candidates = rows.filter((r) => r.line <= STATEMENT_MAX_PREAMBLE + 1);
  const headerAt = candidates.findIndex((r) => {
    const c = columnsOf(r.cells);
    return c.date >= 0 && (c.credit >= 0 || c.amount >= 0);
  });
  if (headerAt < 0) {
    // The row that comes nearest names what is missing (`when,what` lacks all three).
    const best = candidates
      .map((r) => missingOf(columnsOf(r.cells)))
      .reduce<FieldError[] | undefined>((a, b) => (a && a.length <= b.length ? a : b), undefined) ?? [
      ...missingOf(columnsOf([])),
    ];
    throw badRequest(`The statement has no ${best[0].field} column`, best);
  }
  const columns = columnsOf(rows[headerAt].cells);
  const missing = missingOf(columns);
  if (missing.length) throw badRequest(`The statement has no ${missing[0].field} column`, missing);

  const body = rows.slice(headerAt + 1).filter((r) => hasText(r.cells));
  let last = body.length - 1;
  while (last >= 0 && !dateShape(body[last].cells[columns.date] ?? '')) last -= 1;
  const transactions = body.slice(0, last + 1);
  if (transactions.length > STATEMENT_MAX_ROWS) throw new ApiError(413, STATEMENT_TOO_LONG);
  return transactions.map((r) => readRow(r, columns));
}

function readRow({ line, cells }: SheetRow, c: Columns): StatementRow {
  const cell = (index: number) => (index >= 0 ? (cells[index] ?? '').trim() : '');
  const credit = creditOf(
    c.credit >= 0 ? cell(c.credit) : cell(c.amount),
    c.credit >= 0 ? undefined : cell(c.type),
  );
  if (credit === 'skipped') return { line, kind: 'skipped' };
  const ref = cell(c.utr);
  const utr = utrOf(ref) ?? utrInNarration(cell(c.narration));
  const amountPaise = credit ?? null;
  const shownUtr = utr ?? (ref || null);
  const date = readDate(cell(c.date));
  if (credit === undefined) return { line, kind: 'bad', field: 'amount', utr: shownUtr, amountPaise };
  if (!date) return { line, kind: 'bad', field: 'date', utr: shownUtr, amountPaise };
  if (!utr) return { line, kind: 'bad', field: 'utr', utr: shownUtr, amountPaise };
  return { line, kind: 'credit', utr, amountPaise: credit, date };
}

const DEBIT = /^(dr|d|debit|withdrawal)$/i;
const CREDIT = /^(cr|c|credit|deposit)$/i;

/**
 * An amount cell (and the row's `Cr/Dr` or type cell, for an amount column) → the credit in paise, 'skipped' for a
 * debit or no credit, undefined when it does not read. `1,000.00 Cr` / `500 Dr` carry their own type.
 */
export function creditOf(text: string, type?: string): number | 'skipped' | undefined {
  let value = text.trim();
  let kind = (type ?? '').trim().replace(/\.$/, '');
  const suffix = /^(.*?)\s*\(?(cr|dr)\.?\)?$/i.exec(value);
  if (suffix && /\d/.test(suffix[1])) {
    value = suffix[1];
    kind = suffix[2];
  }
  if (value === '' || value === '-') return 'skipped';
  if (kind && DEBIT.test(kind)) return 'skipped';
  if (kind && !CREDIT.test(kind)) return undefined;
  const negative = /^-|^\(.*\)$/.test(value);
  const paise = rupeesTextToPaise(negative ? value.replace(/^-\s*|^\(|\)$/g, '') : value);
  if (paise === undefined) return undefined;
  return negative || paise === 0 ? 'skipped' : paise;
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

/**
 * A reference cell → the 12-digit UTR: 12 digits, or a longer run of digits whose extra leading characters are
 * zeros (HDFC's `0000633112345603`) read as its last 12; undefined otherwise (all zeros, HDFC's "no reference", too).
 */
export function utrOf(text: string): string | undefined {
  const value = text.trim();
  if (!/^\d{12,}$/.test(value) || /^0+$/.test(value)) return undefined;
  return /^0*$/.test(value.slice(0, -12)) ? value.slice(-12) : undefined;
}

/**
 * The 12-digit reference in a narration: the first part that is 12 digits (or zero-padded to more), parts being
 * separated by `/`, `-`, `:`, `|`, `*` or spaces: `UPI/CR/633112345603/NAME/BANK/vpa/NOTE`,
 * `UPI-NAME-VPA-BANK-633112345603-NOTE`. A VPA such as `919876543210@ybl` is not a part of digits.
 */
export function utrInNarration(text: string): string | undefined {
  for (const part of text.split(/[/\-:|*\s]+/)) {
    const utr = utrOf(part);
    if (utr) return utr;
  }
  return undefined;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * A statement's date → `YYYY-MM-DD` when it is a real date: `YYYY-MM-DD`, `DD/MM/YYYY`, `DD-MM-YYYY`, `DD/MM/YY`,
 * `DD-MM-YY`, `DD Mon YYYY`, `DD-Mon-YY`, `DD-Mon-YYYY` (a month's name in full too; a two-digit year is 20YY). A
 * time after the date (`24/11/2026 10:32:05`) is ignored.
 */
export function readDate(text: string): string | undefined {
  const date = dateShape(text);
  return date && isCalendarDate(date) ? date : undefined;
}

/** A date as written → `YYYY-MM-DD`, real or not (`31/02/2025` is a transaction's bad date, not a footer). */
function dateShape(text: string): string | undefined {
  const value = text.trim().replace(/[ T]\d{1,2}:\d{2}(:\d{2})?(\s*[ap]m)?$/i, '');
  let y: string, m: string, d: string;
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const numeric = /^(\d{1,2})([/-])(\d{1,2})\2(\d{4}|\d{2})$/.exec(value);
  const named = /^(\d{1,2})[ -]([a-z]{3,9})\.?[ ,-]\s*(\d{4}|\d{2})$/i.exec(value);
  if (iso) [, y, m, d] = iso;
  else if (numeric) [y, m, d] = [numeric[4], numeric[3], numeric[1]];
  else if (named) {
    const name = named[2].toLowerCase();
    const month = MONTHS.findIndex(
      (mon) => name === mon || name === FULL[mon] || (mon === 'sep' && name === 'sept'),
    );
    if (month < 0) return undefined;
    [y, m, d] = [named[3], String(month + 1), named[1]];
  } else return undefined;
  return `${y.length === 2 ? `20${y}` : y}-${m.padStart(2, '0')}-${d.padStart(2, '0')}`;
}

const FULL: Record<string, string> = {
  jan: 'january',
  feb: 'february',
  mar: 'march',
  apr: 'april',
  may: 'may',
  jun: 'june',
  jul: 'july',
  aug: 'august',
  sep: 'september',
  oct: 'october',
  nov: 'november',
  dec: 'december',
};
