import { csvDocument } from '../../common/http/csv';
import { formatRupees } from '../../common/money/money';
import type { AccountEntryRow } from './accounts.schema';
import { chargeItemLines } from './charge-item-lines';
import type { Statement } from './accounts.queries';

/** Who issues the statement: printed at the top of the PDF. */
export interface StatementIssuer {
  messName: string;
  email: string;
  phone: string;
}

/** A statement with the member's college id and the mess that issues it: what the JSON, CSV and PDF all show. */
export interface IssuedStatement extends Statement {
  /** Null when the member has none recorded. */
  collegeId: string | null;
  issuer: StatementIssuer;
}

const METHOD_NAMES: Record<string, string> = {
  cash: 'cash',
  upi: 'UPI',
  bank: 'bank transfer',
  card: 'card',
  other: 'other',
};

/** What a line is, in a treasurer's words: "Mess bill 2025-03", "Payment (UPI, ref UPI-1234)". */
export function particulars(entry: AccountEntryRow): string {
  const note = entry.note ? ` — ${entry.note}` : '';
  switch (entry.kind) {
    case 'charge':
      return `Mess bill ${entry.month}`;
    case 'payment': {
      const ref = entry.reference ? `, ref ${entry.reference}` : '';
      return `Payment (${METHOD_NAMES[entry.method ?? 'other']}${ref})${note}`;
    }
    case 'adjustment':
      return `Adjustment${note}`;
    case 'opening':
      return `Opening balance${note}`;
    case 'reversal':
      return `Reversal${entry.month ? ` of mess bill ${entry.month}` : ''}${note}`;
  }
}

const plain = (paise: number): string => (paise / 100).toFixed(2);

/**
 * The statement as CSV, spreadsheet-ready like the bill's: UTF-8 with BOM, one row per entry between an opening and
 * a closing row, amounts as plain numbers in rupees (debit, credit, balance after the row). Every row names the member
 * and their college id; after each month's charge come its items (kind `charge_item`: meals × the rate per meal,
 * each extra by item) with quantity, unit price and amount in their own columns, the debit column left to the
 * charge, so sums of debits are unchanged.
 */
export function statementCsv(statement: IssuedStatement): string {
  const { lines } = statement;
  const who = [statement.fullName, statement.collegeId ?? ''];
  const none = ['', '', ''];
  return csvDocument([
    [
      'date',
      'entry_id',
      'kind',
      'particulars',
      'month',
      'debit_inr',
      'credit_inr',
      'balance_inr',
      'quantity',
      'unit_price_inr',
      'item_amount_inr',
      'member',
      'college_id',
    ],
    [
      `${statement.from}-01`,
      '',
      'opening_balance',
      'Opening balance',
      '',
      '',
      '',
      plain(statement.openingPaise),
      ...none,
      ...who,
    ],
    ...lines.flatMap(({ entry, balancePaise }) => [
      [
        entry.date,
        entry.id,
        entry.kind,
        particulars(entry),
        entry.month ?? '',
        entry.direction === 'debit' ? plain(entry.amountPaise) : '',
        entry.direction === 'credit' ? plain(entry.amountPaise) : '',
        plain(balancePaise),
        ...none,
        ...who,
      ],
      ...(entry.kind === 'charge' ? chargeItemLines(entry.items) : []).map((item) => [
        entry.date,
        entry.id,
        'charge_item',
        item.particulars,
        entry.month ?? '',
        '',
        '',
        '',
        String(item.quantity),
        item.unitPricePaise === null ? '' : plain(item.unitPricePaise),
        plain(item.amountPaise),
        ...who,
      ]),
    ]),
    [
      '',
      '',
      'closing_balance',
      'Closing balance',
      '',
      plain(statement.totalDebitPaise),
      plain(statement.totalCreditPaise),
      plain(statement.closingPaise),
      ...none,
      ...who,
    ],
  ]);
}

/** DejaVu Sans has the rupee sign (U+20B9), which the PDF standard fonts lack. Resolved from the npm package. */
const FONT = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
const FONT_BOLD = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf');

/** Column layout of an A4 page (points): date, particulars, debit, credit, balance. */
const COLUMNS = [
  { title: 'Date', x: 40, width: 62, align: 'left' },
  { title: 'Particulars', x: 104, width: 196, align: 'left' },
  { title: 'Debit', x: 302, width: 80, align: 'right' },
  { title: 'Credit', x: 384, width: 80, align: 'right' },
  { title: 'Balance', x: 466, width: 90, align: 'right' },
] as const;

/**
 * A printable statement (A4): the mess's name and contact, the member and period, then opening balance, every entry
 * with its running balance, totals and closing balance, in rupees the Indian way (₹1,23,456.78; a credit balance
 * is negative). `generatedOn` is the issue date printed at the bottom.
 */
export async function statementPdf(
  statement: IssuedStatement,
  issuer: StatementIssuer,
  generatedOn: string,
): Promise<Buffer> {
  // Loaded on the first PDF, not at start: pdfkit and its font engine are a large graph most processes never need.
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({
    size: 'A4',
    margin: 40,
    info: {
      Title: `Account statement ${statement.fullName} ${statement.from} to ${statement.to}`,
      Author: issuer.messName,
    },
  });
  doc.registerFont('body', FONT);
  doc.registerFont('bold', FONT_BOLD);
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  doc.font('bold').fontSize(16).text(issuer.messName, 40, 40);
  const contact = [issuer.email, issuer.phone].filter(Boolean).join('  ·  ');
  if (contact) doc.font('body').fontSize(9).text(contact);
  doc.moveDown(0.8);
  doc.font('bold').fontSize(12).text('Statement of account');
  doc
    .font('body')
    .fontSize(10)
    .text(`Member: ${statement.fullName}${statement.collegeId ? `, college id ${statement.collegeId}` : ''}`)
    .text(`Account: ${statement.userId}`)
    .text(`Period: ${statement.from} to ${statement.to}`);
  doc.moveDown(0.8);

  const row = (cells: string[], font: 'body' | 'bold' = 'body') => {
    if (doc.y > doc.page.height - 80) {
      doc.addPage();
      header();
    }
    const y = doc.y;
    doc.font(font).fontSize(9);
    let bottom = y;
    COLUMNS.forEach((column, i) => {
      doc.text(cells[i] ?? '', column.x, y, { width: column.width, align: column.align });
      bottom = Math.max(bottom, doc.y);
    });
    doc.x = 40;
    doc.y = bottom + 3;
  };
  const header = () => {
    row(
      COLUMNS.map((c) => c.title),
      'bold',
    );
    doc
      .moveTo(40, doc.y - 1)
      .lineTo(556, doc.y - 1)
      .lineWidth(0.5)
      .stroke();
    doc.y += 2;
  };

  header();
  row([`${statement.from}-01`, 'Opening balance', '', '', formatRupees(statement.openingPaise)], 'bold');
  for (const { entry, balancePaise } of statement.lines) {
    const amount = formatRupees(entry.amountPaise);
    row([
      entry.date,
      particulars(entry),
      entry.direction === 'debit' ? amount : '',
      entry.direction === 'credit' ? amount : '',
      formatRupees(balancePaise),
    ]);
    if (entry.kind === 'charge') {
      for (const item of chargeItemLines(entry.items)) row(['', `    ${item.particulars}`, '', '', '']);
    }
  }
  row(
    [
      '',
      'Closing balance',
      formatRupees(statement.totalDebitPaise),
      formatRupees(statement.totalCreditPaise),
      formatRupees(statement.closingPaise),
    ],
    'bold',
  );
  doc.moveDown(1.5);
  const closing = statement.closingPaise;
  doc
    .font('body')
    .fontSize(9)
    .text(
      closing > 0
        ? `Amount due: ${formatRupees(closing)}`
        : closing < 0
          ? `In credit: ${formatRupees(-closing)}`
          : 'Settled: nothing is due.',
      40,
    )
    .text(`Issued on ${generatedOn}. A negative balance is money paid in advance.`);
  doc.end();
  return done;
}
