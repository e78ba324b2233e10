import { type CellValue, Workbook } from 'exceljs';
import { badRequest } from '../../common/errors/api-error';
import { readStatementRows, type SheetRow, type StatementRow } from './statement-table';

export const XLSX_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
export const STATEMENT_NOT_XLSX = 'The statement is not a readable Excel (.xlsx) workbook';

/**
 * A bank statement exported as an Excel workbook (.xlsx) → the transaction rows of its first sheet, each with its
 * spreadsheet row (read by `exceljs`; dates typed as dates, references typed as numbers and text cells all read).
 */
export async function readStatementWorkbook(bytes: Buffer): Promise<StatementRow[]> {
  const workbook = new Workbook();
  try {
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  } catch {
    throw badRequest(STATEMENT_NOT_XLSX);
  }
  const sheet = workbook.worksheets[0];
  if (!sheet) throw badRequest(STATEMENT_NOT_XLSX);
  const rows: SheetRow[] = [];
  sheet.eachRow({ includeEmpty: false }, (row, line) => {
    const cells: string[] = [];
    row.eachCell({ includeEmpty: true }, (cell, column) => {
      cells[column - 1] = cellText(cell.value);
    });
    rows.push({ line, cells: Array.from(cells, (c) => c ?? '') });
  });
  return readStatementRows(rows);
}

/** A cell's value as a statement's text: a date as YYYY-MM-DD, a number in full, a formula's result, rich text's. */
export function cellText(value: CellValue): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString().slice(0, 10);
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value).toString() : String(value);
  if (typeof value === 'string' || typeof value === 'boolean') return String(value);
  if ('richText' in value) return value.richText.map((part) => part.text).join('');
  if ('result' in value) return cellText((value.result ?? null) as CellValue);
  if ('text' in value) return typeof value.text === 'string' ? value.text : cellText(value.text as CellValue);
  return '';
}
