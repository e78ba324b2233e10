/**
 * Quotes when needed, and defuses cells a spreadsheet would run as a formula. A plain number (`-1250.50`) is left
 * as it is: it is no formula, and a spreadsheet must read it as a number.
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) && !/^-\d+(\.\d+)?$/.test(value) ? `'${value}` : value;
  return /[",\r\n']/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Rows as a spreadsheet-ready CSV: UTF-8 with a byte-order mark (read as UTF-8), CRLF line ends. */
export function csvDocument(rows: string[][]): string {
  return `\uFEFF${rows.map((row) => row.map(csvCell).join(',')).join('\r\n')}\r\n`;
}
