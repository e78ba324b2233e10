import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Workbook } from 'exceljs';
import { sql } from 'drizzle-orm';
import { addDays, localParts } from '../../src/common/time/dates';
import { FIRST_MESS_ID, inMess } from '../../src/common/tenancy/mess-scope';
import { Database } from '../../src/database/database';
import { messSetup, TestApp } from '../support/app';

type Member = Awaited<ReturnType<TestApp['member']>>;

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const today = () => localParts(new Date(), 'Asia/Kolkata').date;
const sample = (name: string) => readFileSync(join(__dirname, '../support/bank-statements', name));

/**
 * "The first week": the statement exports of SBI, HDFC and ICICI as downloaded (preambles, their own column names,
 * debits, footers, UTRs in narrations, zero-padded references), in CSV and in Excel.
 */
describe('Paying the mess: bank statements as the banks export them', () => {
  let t: TestApp;
  let treasurer: Member;
  let asha: Member;
  let ravi: Member;
  let meera: Member;
  const claims: Record<string, string> = {};

  const payments = async (): Promise<number> => {
    const result = await inMess(FIRST_MESS_ID, () =>
      t.app
        .get(Database)
        .db.execute(sql`select count(*)::int as n from account_entries where kind = 'payment'`),
    );
    const rows = (result as { rows?: { n: number }[] }).rows ?? (result as unknown as { n: number }[]);
    return Number(rows[0].n);
  };
  const upload = (body: string | Buffer, contentType = 'text/csv') =>
    t.request('POST', '/accounts/bank-statement', {
      token: treasurer.token,
      body,
      headers: { 'content-type': contentType },
    });
  const claim = async (m: Member, amount: number, utr: string) => {
    const date = addDays(today(), -2);
    const res = await t.post('/accounts/me/payment-claims', { amount, date, utr }, { token: m.token });
    expect(res.status).toBe(201);
    claims[utr] = res.body.claim._id as string;
  };
  const who = (m: Member) => ({ _id: m.id, fullName: m.fullName });

  beforeAll(async () => {
    t = await TestApp.start({ MESS_TIMEZONE: 'Asia/Kolkata' });
    const admin = await t.adminToken();
    expect((await t.post('/auth/admin/setup', messSetup(), { token: admin })).status).toBe(200);
    treasurer = await t.member('treasurer');
    asha = await t.member('student', { fullName: 'Asha Verma' });
    ravi = await t.member('student', { fullName: 'Ravi Kumar' });
    meera = await t.member('student', { fullName: 'Meera Nair' });
  }, 120_000);
  afterAll(() => t?.close());

  it('SBI: BOM, CRLF, 12 lines of preamble, UTRs in UPI/CR narrations, a debit, a footer', async () => {
    await claim(asha, 3250.5, '633112345601');
    await claim(ravi, 1200, '633112345602');
    const before = await payments();
    const res = await upload(sample('sbi.csv'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      rows: 5,
      matched: 1,
      alreadyRecorded: 0,
      skipped: 1,
      matchedLines: [
        { line: 14, utr: '633112345601', amount: 3250.5, claimId: claims['633112345601'], member: who(asha) },
      ],
      unmatched: [
        { line: 16, utr: '633112345602', amount: 1000, reason: 'amount differs', claimedAmount: 1200 },
        { line: 17, utr: '633112345609', amount: 500, reason: 'no claim' },
        { line: 18, utr: '123456', amount: 5000, reason: 'bad row', field: 'utr' },
      ],
    });
    expect(await payments()).toBe(before + 1);
    const again = await upload(sample('sbi.csv'));
    expect(again.body).toMatchObject({
      rows: 5,
      matched: 0,
      alreadyRecorded: 1,
      skipped: 1,
      matchedLines: [],
    });
    expect(await payments()).toBe(before + 1);
  });

  it('HDFC: Chq./Ref.No. zero-padded to 16 digits, Deposit Amt., DD/MM/YY, a separator row and a summary', async () => {
    await claim(meera, 2500, '633112345611');
    await claim(asha, 750, '633112345612');
    const before = await payments();
    const res = await upload(sample('hdfc.csv'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      rows: 5,
      matched: 2,
      alreadyRecorded: 0,
      skipped: 1,
      matchedLines: [
        { line: 8, utr: '633112345611', amount: 2500, claimId: claims['633112345611'], member: who(meera) },
        { line: 9, utr: '633112345612', amount: 750, claimId: claims['633112345612'], member: who(asha) },
      ],
      unmatched: [
        { line: 11, utr: '633112345613', amount: 1000, reason: 'no claim' },
        { line: 12, utr: '0000000000000000', amount: 2000, reason: 'bad row', field: 'utr' },
      ],
    });
    expect(await payments()).toBe(before + 2);
    const account = (await t.get('/accounts/me', { token: meera.token })).body;
    expect(account.entries[0]).toMatchObject({ method: 'upi', reference: '633112345611', amount: 2500 });
    const again = await upload(sample('hdfc.csv'));
    expect(again.body).toMatchObject({ rows: 5, matched: 0, alreadyRecorded: 2, skipped: 1 });
    expect(await payments()).toBe(before + 2);
  });

  it('ICICI: Transaction Amount(INR) with Cr/Dr, DD-Mon-YYYY value dates, a date that is not real', async () => {
    await claim(meera, 1200, '633112345621');
    await claim(ravi, 1200, '633112345622');
    const before = await payments();
    const res = await upload(sample('icici.csv'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      rows: 4,
      matched: 2,
      alreadyRecorded: 0,
      skipped: 1,
      matchedLines: [
        { line: 6, utr: '633112345621', amount: 1200, claimId: claims['633112345621'], member: who(meera) },
        { line: 8, utr: '633112345622', amount: 1200, claimId: claims['633112345622'], member: who(ravi) },
      ],
      unmatched: [{ line: 9, utr: '633112345623', amount: 100, reason: 'bad row', field: 'date' }],
    });
    expect(await payments()).toBe(before + 2);
    const again = await upload(sample('icici.csv'));
    expect(again.body).toMatchObject({ rows: 4, matched: 0, alreadyRecorded: 2, skipped: 1 });
    expect(await payments()).toBe(before + 2);
  });

  it("ICICI's Detailed Statement: Withdrawal / Deposit Amount (INR ) columns, a blank first column, legends", async () => {
    await claim(asha, 3250.5, '633112345641');
    await claim(ravi, 1000, '633112345642');
    const before = await payments();
    const res = await upload(sample('icici-detailed.csv'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      rows: 4,
      matched: 1,
      alreadyRecorded: 0,
      skipped: 1,
      matchedLines: [
        { line: 11, utr: '633112345641', amount: 3250.5, claimId: claims['633112345641'], member: who(asha) },
      ],
      unmatched: [
        { line: 13, utr: '633112345642', amount: 900, reason: 'amount differs', claimedAmount: 1000 },
        { line: 14, utr: '633112345643', amount: 500, reason: 'no claim' },
      ],
    });
    expect(await payments()).toBe(before + 1);
    const again = await upload(sample('icici-detailed.csv'));
    expect(again.body).toMatchObject({ rows: 4, matched: 0, alreadyRecorded: 1, skipped: 1 });
    expect(await payments()).toBe(before + 1);
  });

  it("ICICI's Detailed Statement as Excel: the same layout in a workbook, amounts as numbers", async () => {
    await claim(meera, 1500, '633112345651');
    await claim(ravi, 620.75, '633112345652');
    const workbook = new Workbook();
    const sheet = workbook.addWorksheet('OpTransactionHistory');
    const preamble = [
      [],
      [null, 'DETAILED STATEMENT'],
      [],
      [null, 'Transactions List - HOSTEL 7 MESS (INR) - 012305012345'],
      [],
      [null, 'Transaction Date from 01/11/2026 to 30/11/2026'],
      [null, 'Account Number', '012305012345'],
      [],
    ];
    for (const row of preamble) sheet.addRow(row);
    sheet.addRow([
      null,
      'S No.',
      'Value Date',
      'Transaction Date',
      'Cheque Number',
      'Transaction Remarks',
      'Withdrawal Amount (INR )',
      'Deposit Amount (INR )',
      'Balance (INR )',
    ]);
    sheet.addRow([
      null,
      1,
      '27/11/2026',
      '27/11/2026',
      '-',
      'UPI/633112345651/Mess fee/meera@okicici/ICICI Bank/ICI5f4e3d2c1b0a',
      0,
      1500,
      21500,
    ]);
    sheet.addRow([null, 2, '27/11/2026', '27/11/2026', '-', 'NEFT-VEGETABLE VENDOR-NOV', 4000, 0, 17500]);
    sheet.addRow([
      null,
      3,
      '28/11/2026',
      '28/11/2026',
      '-',
      'UPI/633112345652/mess/ravi.k@ybl/Yes Bank Ltd/ICI9a8b7c6d5e4f',
      0,
      620.75,
      18120.75,
    ]);
    sheet.addRow([]);
    sheet.addRow([null, 'Legends Used in Account Statement']);
    const xlsx = Buffer.from(await workbook.xlsx.writeBuffer());
    const before = await payments();
    const res = await upload(xlsx, XLSX);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      rows: 3,
      matched: 2,
      alreadyRecorded: 0,
      skipped: 1,
      matchedLines: [
        { line: 10, utr: '633112345651', amount: 1500, claimId: claims['633112345651'], member: who(meera) },
        { line: 12, utr: '633112345652', amount: 620.75, claimId: claims['633112345652'], member: who(ravi) },
      ],
      unmatched: [],
    });
    expect(await payments()).toBe(before + 2);
  });

  it("Excel: SBI's layout in a workbook's first sheet (dates as dates, numbers as numbers); lines are its rows", async () => {
    await claim(asha, 410, '633112345631');
    await claim(ravi, 2999.99, '633112345632');
    await claim(meera, 100, '633112345633');
    const workbook = new Workbook();
    const sheet = workbook.addWorksheet('Statement');
    workbook.addWorksheet('Other').addRow(['Date', 'Amount', 'UTR']);
    const day = (d: number) => new Date(Date.UTC(2026, 10, d));
    sheet.addRow(['Account Name       :', 'HOSTEL 7 MESS']);
    sheet.addRow(['Account Number     :', '_00000041234567890']);
    sheet.addRow([]);
    sheet.addRow(['Start Date         :', day(1)]);
    sheet.addRow([
      'Txn Date',
      'Value Date',
      'Description',
      'Ref No./Cheque No.',
      'Debit',
      'Credit',
      'Balance',
    ]);
    sheet.addRow([
      day(24),
      day(24),
      'UPI/CR/633112345631/ASHA VERMA/SBIN/asha@oksbi/Mess',
      'TRANSFER FROM 1',
      null,
      410,
      10410,
    ]);
    sheet.addRow([day(24), day(24), 'NEFT/PAYMENT TO VENDOR', null, 5000, null, 5410]);
    sheet.addRow([
      '25 Nov 2026',
      '25 Nov 2026',
      'IMPS/transfer',
      '0000633112345632',
      '',
      '2,999.99',
      8409.99,
    ]);
    sheet.addRow([day(26), day(26), 'UPI/CR/RAVI/x', 633112345633, null, 150, 8559.99]);
    sheet.addRow([
      day(26),
      day(26),
      { richText: [{ text: 'UPI/CR/' }, { text: '633112345634/X' }] },
      null,
      null,
      'ten',
      1,
    ]);
    sheet.addRow([]);
    sheet.addRow(['**This is a computer generated statement and does not require a signature.']);
    const xlsx = Buffer.from(await workbook.xlsx.writeBuffer());
    const before = await payments();
    const res = await upload(xlsx, XLSX);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      rows: 5,
      matched: 2,
      alreadyRecorded: 0,
      skipped: 1,
      matchedLines: [
        { line: 6, utr: '633112345631', amount: 410, claimId: claims['633112345631'], member: who(asha) },
        { line: 8, utr: '633112345632', amount: 2999.99, claimId: claims['633112345632'], member: who(ravi) },
      ],
      unmatched: [
        { line: 9, utr: '633112345633', amount: 150, reason: 'amount differs', claimedAmount: 100 },
        { line: 10, utr: '633112345634', amount: null, reason: 'bad row', field: 'amount' },
      ],
    });
    expect(await payments()).toBe(before + 2);
    const again = await upload(xlsx, XLSX);
    expect(again.body).toMatchObject({ rows: 5, matched: 0, alreadyRecorded: 2, skipped: 1 });
    expect(await payments()).toBe(before + 2);
  });

  it('refuses what is not a workbook (400), a workbook past the limit (413), another content type (415)', async () => {
    const before = await payments();
    const garbage = await upload(Buffer.from('PK\u0003\u0004 not really a zip'), XLSX);
    expect(garbage.status).toBe(400);
    expect(garbage.body.error).toBe('The statement is not a readable Excel (.xlsx) workbook');
    expect((await upload(Buffer.alloc(1024 * 1024 + 1), XLSX)).status).toBe(413);
    const other = await upload(Buffer.from('a'), 'application/vnd.ms-excel');
    expect(other.status).toBe(415);
    expect(await payments()).toBe(before);
  });
});
