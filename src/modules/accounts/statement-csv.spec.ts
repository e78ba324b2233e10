import { ApiError } from '../../common/errors/api-error';
import { rfc3986, upiNote } from './payment-claims.service';
import { readStatement, rupeesTextToPaise } from './statement-csv';
import { columnKey, creditOf, readDate, utrInNarration, utrOf } from './statement-table';
import { cellText } from './statement-xlsx';

describe('the bank statement CSV', () => {
  it('reads a BOM, quoted fields, aliases of the UTR column, both date forms and thousands separators', () => {
    const rows = readStatement(
      '\uFEFF Date ,"Narration", REF  NO ,Amount\r\n' +
        '2025-03-14,"UPI/412233445566/Asha, V",412233445566,"1,23,456.50"\r\n' +
        '\r\n' +
        '14/03/2025,x,512233445566,₹ 2500\r\n' +
        '31/02/2025,x,612233445566,10\r\n',
    );
    expect(rows).toEqual([
      { line: 2, kind: 'credit', utr: '412233445566', amountPaise: 12_345_650, date: '2025-03-14' },
      { line: 4, kind: 'credit', utr: '512233445566', amountPaise: 250_000, date: '2025-03-14' },
      { line: 5, kind: 'bad', field: 'date', utr: '612233445566', amountPaise: 1000 },
    ]);
  });

  it('names the missing columns (400) and refuses more than 5,000 rows (413)', () => {
    const status = (text: string) => {
      try {
        readStatement(text);
        return 200;
      } catch (error) {
        return (error as ApiError).getStatus();
      }
    };
    expect(status('date,amount\n')).toBe(400);
    expect(status(['date,amount,utr', ...Array(5001).fill('2025-01-01,1,100000000000')].join('\n'))).toBe(
      413,
    );
    expect(status(['date,amount,utr', ...Array(5000).fill('2025-01-01,1,100000000000')].join('\n'))).toBe(
      200,
    );
  });

  it("finds the header after a bank's preamble (up to 30 lines) and leaves the footer out", () => {
    const preamble = Array.from({ length: 30 }, (_, i) => `Line ${i + 1} :,something`);
    const text = [
      ...preamble,
      'Txn Date,Value Date,Description,Ref No./Cheque No.,Debit,Credit,Balance',
      '24 Nov 2026,24 Nov 2026,UPI/CR/633112345603/ASHA/SBIN/asha@okaxis/Mess,,,"1,200.00",5000',
      '25 Nov 2026,25 Nov 2026,ATM WDL,,500.00,,4500',
      '**This is a computer generated statement,,,,,,',
    ].join('\r\n');
    expect(readStatement(text)).toEqual([
      { line: 32, kind: 'credit', utr: '633112345603', amountPaise: 120_000, date: '2026-11-24' },
      { line: 33, kind: 'skipped' },
    ]);
    // one more preamble line and the header is past line 31: 400 naming the columns
    try {
      readStatement(`x\r\n${text}`);
      throw new Error('read');
    } catch (error) {
      expect((error as ApiError).error).toBe('The statement has no date column');
    }
  });

  it('names the field of a bad row, and skips debits of an amount column typed Cr/Dr', () => {
    const rows = readStatement(
      'Value Date,Description,Cr/Dr,Transaction Amount(INR)\n' +
        '24-Nov-2026,UPI/633112345603/x,CR,1000\n' +
        '24-Nov-2026,UPI/633112345604/x,DR,1000\n' +
        '24-Nov-2026,NEFT from someone,CR,1000\n' +
        '24-Nov-2026,UPI/633112345605/x,CR,ten\n' +
        '31-Nov-2026,UPI/633112345606/x,CR,10\n' +
        '25-Nov-2026,UPI/633112345607/x,XX,10\n',
    );
    expect(rows).toEqual([
      { line: 2, kind: 'credit', utr: '633112345603', amountPaise: 100_000, date: '2026-11-24' },
      { line: 3, kind: 'skipped' },
      { line: 4, kind: 'bad', field: 'utr', utr: null, amountPaise: 100_000 },
      { line: 5, kind: 'bad', field: 'amount', utr: '633112345605', amountPaise: null },
      { line: 6, kind: 'bad', field: 'date', utr: '633112345606', amountPaise: 1000 },
      { line: 7, kind: 'bad', field: 'amount', utr: '633112345607', amountPaise: null },
    ]);
  });

  it('reads the dates banks write', () => {
    expect(readDate('2026-11-24')).toBe('2026-11-24');
    expect(readDate('24/11/2026')).toBe('2026-11-24');
    expect(readDate('24-11-2026')).toBe('2026-11-24');
    expect(readDate('24/11/26')).toBe('2026-11-24');
    expect(readDate('24 Nov 2026')).toBe('2026-11-24');
    expect(readDate('4 nov 2026')).toBe('2026-11-04');
    expect(readDate('24-Nov-26')).toBe('2026-11-24');
    expect(readDate('24-Nov-2026')).toBe('2026-11-24');
    expect(readDate('24 September 2026')).toBe('2026-09-24');
    expect(readDate('24/11/2026 10:32:05')).toBe('2026-11-24');
    expect(readDate('29/02/25')).toBeUndefined();
    expect(readDate('24 Nox 2026')).toBeUndefined();
    expect(readDate('11/24/2026')).toBeUndefined();
    expect(readDate('Date :')).toBeUndefined();
  });

  it('reads credits: a credit column, Cr/Dr beside an amount or after it, zero and negative as debits', () => {
    expect(creditOf('1,200.00')).toBe(120_000);
    expect(creditOf('')).toBe('skipped');
    expect(creditOf('0.00')).toBe('skipped');
    expect(creditOf('-500')).toBe('skipped');
    expect(creditOf('(500.00)')).toBe('skipped');
    expect(creditOf('1000', 'CR')).toBe(100_000);
    expect(creditOf('1000', 'Dr.')).toBe('skipped');
    expect(creditOf('1000', 'Debit')).toBe('skipped');
    expect(creditOf('1,000.00 Cr')).toBe(100_000);
    expect(creditOf('500.00 Dr')).toBe('skipped');
    expect(creditOf('five')).toBeUndefined();
    expect(creditOf('10', 'Refund')).toBeUndefined();
  });

  it('reads the UTR: 12 digits, zero-padded references, the reference in a UPI narration', () => {
    expect(utrOf('633112345603')).toBe('633112345603');
    expect(utrOf('0000633112345603')).toBe('633112345603');
    expect(utrOf('0000012345678901')).toBe('012345678901');
    expect(utrOf('1000633112345603')).toBeUndefined();
    expect(utrOf('63311234560')).toBeUndefined();
    expect(utrOf('TRANSFER FROM 4697224044309')).toBeUndefined();
    expect(utrInNarration('UPI/CR/633112345603/ASHA VERMA/SBIN/asha@okaxis/Mess fee')).toBe('633112345603');
    expect(utrInNarration('UPI-RAVI KUMAR-919876543210@ybl-YESB0YBLUPI-633112345604-MESS')).toBe(
      '633112345604',
    );
    expect(utrInNarration('UPI/633112345605/Payment from Ph/meera@ybl/ICICI')).toBe('633112345605');
    expect(utrInNarration('NEFT*HDFC0000001*N123456*SOMEONE')).toBeUndefined();
    expect(utrInNarration('')).toBeUndefined();
  });

  it('compares column names ignoring case, spaces and a trailing dot', () => {
    expect(columnKey(' Deposit Amt. ')).toBe(columnKey('deposit amt'));
    expect(columnKey('Chq./Ref.No.')).toBe(columnKey('chq./ref.no.'));
    expect(columnKey('Transaction Amount(INR)')).toBe(columnKey('transaction amount(inr)'));
  });

  it('compares column names without a currency suffix', () => {
    for (const name of [
      'Deposit Amount (INR )',
      'Deposit Amount (INR)',
      'deposit amount(inr)',
      'Deposit Amount (₹)',
      'Deposit Amount (Rs.)',
      'Deposit Amount (RS)',
      'Deposit Amount in INR',
      'Deposit Amount in Rs.',
    ])
      expect(columnKey(name)).toBe(columnKey('deposit amount'));
    expect(columnKey('Transaction Amount(INR)')).toBe(columnKey('transaction amount'));
    expect(columnKey('Remarks in Hindi')).toBe('remarksinhindi');
  });

  it("reads a spreadsheet cell's value as text", () => {
    expect(cellText(new Date(Date.UTC(2026, 10, 24)))).toBe('2026-11-24');
    expect(cellText(633112345603)).toBe('633112345603');
    expect(cellText(3250.5)).toBe('3250.5');
    expect(cellText({ richText: [{ text: 'UPI/CR/' }, { text: '633112345603' }] })).toBe(
      'UPI/CR/633112345603',
    );
    expect(cellText({ formula: 'A1+1', result: 1200 } as never)).toBe('1200');
    expect(cellText(null)).toBe('');
  });

  it('reads rupees with at most two decimals', () => {
    expect(rupeesTextToPaise('3,250.5')).toBe(325_050);
    expect(rupeesTextToPaise('Rs. 10')).toBe(1000);
    expect(rupeesTextToPaise('1.005')).toBeUndefined();
    expect(rupeesTextToPaise('-5')).toBeUndefined();
    expect(rupeesTextToPaise('')).toBeUndefined();
  });
});

describe('the UPI link values', () => {
  it('percent-encodes per RFC 3986 and keeps the note within 50 characters', () => {
    expect(rfc3986("a@b c!'()*~._-")).toBe('a%40b%20c%21%27%28%29%2A~._-');
    expect(upiNote('Hostel 7 Mess', 'Asha Verma')).toBe('Hostel 7 Mess - Asha Verma');
    const long = upiNote('A very long mess name that goes on and on', 'Someone With A Long Name Indeed');
    expect([...long].length).toBeLessThanOrEqual(50);
    expect(long.startsWith('A very long mess name that goe - Some')).toBe(true);
  });
});
