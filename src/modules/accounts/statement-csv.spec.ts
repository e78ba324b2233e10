import { ApiError } from '../../common/errors/api-error';
import { rfc3986, upiNote } from './payment-claims.service';
import { readStatement, rupeesTextToPaise } from './statement-csv';

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
      { line: 2, ok: true, utr: '412233445566', amountPaise: 12_345_650, date: '2025-03-14' },
      { line: 4, ok: true, utr: '512233445566', amountPaise: 250_000, date: '2025-03-14' },
      { line: 5, ok: false, utr: '612233445566', amountPaise: 1000 },
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
