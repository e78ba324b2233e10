import { sql } from 'drizzle-orm';
import { addDays, localParts } from '../../src/common/time/dates';
import { FIRST_MESS_ID, inMess } from '../../src/common/tenancy/mess-scope';
import { Database } from '../../src/database/database';
import { messSetup, TestApp } from '../support/app';

type Member = Awaited<ReturnType<TestApp['member']>>;

const today = () => localParts(new Date(), 'Asia/Kolkata').date;
const dmy = (date: string) => date.split('-').reverse().join('/');

/** The bank statement import (extension 2.2): matched, already recorded, unmatched and malformed rows. */
describe('Paying the mess: the bank statement import', () => {
  let t: TestApp;
  let admin: string;
  let treasurer: Member;
  let asha: Member;
  let ravi: Member;
  let meera: Member;

  const payments = async (): Promise<number> => {
    // The members are in the first mess: the table read directly shows that mess's entries.
    const result = await inMess(FIRST_MESS_ID, () =>
      t.app
        .get(Database)
        .db.execute(sql`select count(*)::int as n from account_entries where kind = 'payment'`),
    );
    const rows = (result as { rows?: { n: number }[] }).rows ?? (result as unknown as { n: number }[]);
    return Number(rows[0].n);
  };
  const upload = (csv: string, token = treasurer.token, contentType = 'text/csv') =>
    t.request('POST', '/accounts/bank-statement', {
      token,
      body: csv,
      headers: { 'content-type': contentType },
    });
  const claim = async (m: Member, amount: number, utr: string, date = addDays(today(), -2)) => {
    const res = await t.post('/accounts/me/payment-claims', { amount, date, utr }, { token: m.token });
    expect(res.status).toBe(201);
    return res.body.claim._id as string;
  };

  beforeAll(async () => {
    t = await TestApp.start({ MESS_TIMEZONE: 'Asia/Kolkata' });
    admin = await t.adminToken();
    expect((await t.post('/auth/admin/setup', messSetup(), { token: admin })).status).toBe(200);
    treasurer = await t.member('treasurer');
    asha = await t.member('student', { fullName: 'Asha Verma' });
    ravi = await t.member('student', { fullName: 'Ravi Kumar' });
    meera = await t.member('student', { fullName: 'Meera Nair' });
  }, 120_000);
  afterAll(() => t?.close());

  it('accepts the claims it matches and reports every other row with why; imported twice, nothing new', async () => {
    const d = addDays(today(), -1);
    await claim(asha, 3250.5, '100000000001'); // matched (thousands separator, quoted)
    await claim(ravi, 1200, '100000000002'); // matched (DD/MM/YYYY)
    await claim(meera, 999, '100000000003'); // amount differs
    const early = await claim(meera, 50, '100000000004'); // accepted by hand first: already recorded
    expect(
      (await t.put(`/accounts/payment-claims/${early}/accept`, undefined, { token: treasurer.token })).status,
    ).toBe(200);
    const before = await payments();
    const csv =
      '\uFEFF Txn Date ,Narration,"Ref No",Amount,Balance\r\n' +
      `${d},"UPI/100000000001/Asha, Verma",100000000001,"3,250.50","1,00,000.00"\r\n` +
      `${dmy(d)},UPI/100000000002/Ravi,100000000002,1200,0\r\n` +
      `${d},UPI/100000000003/Meera,100000000003,1000.00,0\r\n` +
      `${d},UPI/100000000004/Meera,100000000004,50,0\r\n` +
      `${d},"Someone ""else""",100000000009,700,0\r\n` +
      `${d},short utr,10000000000,700,0\r\n` +
      `${d},bad amount,100000000010,seven hundred,0\r\n` +
      `not a date,bad date,100000000011,10,0\r\n` +
      '\r\n' +
      `${d},UPI/100000000001/Asha again,100000000001,"3,250.50",0\r\n`;
    // a header naming no date column: 400 naming it, nothing recorded
    const noDate = await upload(csv.replace(' Txn Date ', ' When '));
    expect(noDate.status).toBe(400);
    expect(noDate.body.details.map((x: { field: string }) => x.field)).toEqual(['date']);
    expect(await payments()).toBe(before);

    // `Txn Date` is a date column (SBI's)
    const good = csv;
    const first = await upload(good);
    expect(first.status).toBe(200);
    const claimIds = Object.fromEntries(
      (await t.get('/accounts/payment-claims', { token: treasurer.token })).body.claims.map(
        (c: { utr: string; _id: string }) => [c.utr, c._id],
      ),
    );
    expect(first.body).toEqual({
      success: true,
      rows: 9,
      matched: 2,
      alreadyRecorded: 2,
      skipped: 0,
      matchedLines: [
        {
          line: 2,
          utr: '100000000001',
          amount: 3250.5,
          claimId: claimIds['100000000001'],
          member: { _id: asha.id, fullName: 'Asha Verma' },
        },
        {
          line: 3,
          utr: '100000000002',
          amount: 1200,
          claimId: claimIds['100000000002'],
          member: { _id: ravi.id, fullName: 'Ravi Kumar' },
        },
      ],
      unmatched: [
        { line: 4, utr: '100000000003', amount: 1000, reason: 'amount differs', claimedAmount: 999 },
        { line: 6, utr: '100000000009', amount: 700, reason: 'no claim' },
        { line: 7, utr: '10000000000', amount: 700, reason: 'bad row', field: 'utr' },
        { line: 8, utr: '100000000010', amount: null, reason: 'bad row', field: 'amount' },
        { line: 9, utr: '100000000011', amount: 10, reason: 'bad row', field: 'date' },
      ],
    });
    expect(await payments()).toBe(before + 2);
    const account = (await t.get('/accounts/me', { token: asha.token })).body;
    expect(account.balance).toBe(-3250.5);
    expect(account.entries[0]).toMatchObject({ method: 'upi', reference: '100000000001', amount: 3250.5 });
    const claims = (await t.get('/accounts/payment-claims', { token: treasurer.token })).body.claims;
    const status = Object.fromEntries(claims.map((c: { utr: string; status: string }) => [c.utr, c.status]));
    expect(status).toEqual({
      '100000000001': 'accepted',
      '100000000002': 'accepted',
      '100000000003': 'pending',
      '100000000004': 'accepted',
    });
    // the audit row names the statement line
    const audit = await t.get(`/audit?entity=account&entityId=${ravi.id}`, { token: admin });
    expect(audit.body.events[0]).toMatchObject({
      action: 'payment-recorded',
      after: { source: 'statement', statementLine: 'line 3', reference: '100000000002' },
    });

    // the same file again: nothing new
    const second = await upload(good);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ rows: 9, matched: 0, alreadyRecorded: 4 });
    expect(await payments()).toBe(before + 2);
    // a claim matched by the statement cannot be accepted into a second payment
    const asha1 = claims.find((c: { utr: string }) => c.utr === '100000000001');
    const again = await t.put(`/accounts/payment-claims/${asha1._id}/accept`, undefined, {
      token: treasurer.token,
    });
    expect(again.body.entry.reference).toBe('100000000001');
    expect(await payments()).toBe(before + 2);
  });

  it('refuses what is not a statement: 413 past 5,000 rows, 415 not CSV, 403 for a member', async () => {
    const before = await payments();
    const rows = Array.from({ length: 5001 }, (_, i) => `2025-01-01,${String(i).padStart(12, '0')},1`);
    const long = await upload(['date,utr,amount', ...rows].join('\n'));
    expect(long.status).toBe(413);
    expect(long.body.error).toBe('A statement may have at most 5000 rows');
    expect((await upload('{"a":1}', treasurer.token, 'application/json')).status).toBe(415);
    expect((await upload('date,utr,amount\n', asha.token)).status).toBe(403);
    const noColumns = await upload('when,what\n2025-01-01,x\n');
    expect(noColumns.status).toBe(400);
    expect(noColumns.body.details.map((x: { field: string }) => x.field)).toEqual(['date', 'amount', 'utr']);
    expect(await payments()).toBe(before);
  });
});
