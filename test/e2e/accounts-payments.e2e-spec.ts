import { sql } from 'drizzle-orm';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIRST_MESS_ID, inMess } from '../../src/common/tenancy/mess-scope';
import { Database } from '../../src/database/database';
import {
  accountsSuite,
  type Entry,
  hasPdfToText,
  type Member,
  paise,
  parseCsv,
  STATEMENT_CSV_HEADER,
  sumOf,
} from '../support/accounts';
import { TestApp } from '../support/app';

/** Payments (bad input, one key, racing a close), the ledger kept by the database, and the statement. */
describe('Member accounts: payments and statements', () => {
  const suite = accountsSuite();
  const { spend, present, account, pay, entryCount } = suite;
  let t: TestApp;
  let admin: string;
  let manager: Member;
  let treasurer: Member;
  let a: Member;
  let b: Member;
  let c: Member;
  beforeAll(() => {
    ({ t, admin, manager, treasurer, a, b, c } = suite);
  });
  // The ledger the statement reads, as accounts-closing leaves A's: March closed (a charge each), A's payment in
  // April.
  beforeAll(async () => {
    expect(
      (await t.post('/analytics/months/2025-03/close', undefined, { token: treasurer.token })).status,
    ).toBe(200);
    expect(
      (await pay(a, { amount: 5000, date: '2025-04-02', method: 'upi', reference: 'UPI-1' })).status,
    ).toBe(201);
  });

  it('refuses bad input with a 400 or 404 naming the field, and records nothing', async () => {
    const before = await entryCount();
    const good = { amount: 100, date: '2025-04-01', method: 'cash' };
    for (const [body, field] of [
      [{ ...good, amount: 0 }, 'amount'],
      [{ ...good, amount: -5 }, 'amount'],
      [{ ...good, amount: 1.005 }, 'amount'],
      [{ ...good, amount: 10_000_000.01 }, 'amount'],
      [{ ...good, method: 'cheque' }, 'method'],
      [{ ...good, date: '2099-01-01' }, 'date'],
      [{ ...good, date: '2025-02-30' }, 'date'],
    ] as const) {
      const res = await pay(a, body);
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const noNote = await t.post(
      `/accounts/${a.id}/adjustments`,
      { direction: 'credit', amount: 5 },
      { token: treasurer.token },
    );
    expect(noNote.status).toBe(400);
    expect(noNote.body.details.map((d: { field: string }) => d.field)).toContain('note');
    const badDirection = await t.post(
      `/accounts/${a.id}/adjustments`,
      { direction: 'up', amount: 5, note: 'x' },
      { token: treasurer.token },
    );
    expect(badDirection.body.details.map((d: { field: string }) => d.field)).toContain('direction');
    const unknown = await t.post(`/accounts/00000000-0000-4000-8000-000000000000/payments`, good, {
      token: treasurer.token,
    });
    expect(unknown.status).toBe(404);
    expect(
      (await t.get('/accounts/00000000-0000-4000-8000-000000000000', { token: treasurer.token })).status,
    ).toBe(404);
    expect((await pay(a, good, 'bad key with spaces')).status).toBe(400);
    // who may do what
    expect((await t.post(`/accounts/${a.id}/payments`, good, { token: manager.token })).status).toBe(403);
    expect((await t.get(`/accounts/${b.id}`, { token: a.token })).status).toBe(403);
    expect((await t.get(`/accounts/${b.id}/statement`, { token: a.token })).status).toBe(403);
    expect((await t.get('/accounts', { token: a.token })).status).toBe(403);
    const mine = await t.get('/accounts/me', { token: a.token });
    expect(mine.status).toBe(200);
    expect(mine.body.balance).toBe((await account(a)).balance);
    expect(await entryCount()).toBe(before);
  });

  it('records one payment for 20 concurrent identical requests with one key, and refuses the key with another body', async () => {
    const before = (await account(b)).entries.length;
    const body = { amount: 777.77, date: '2025-04-05', method: 'cash', note: 'April' };
    const answers = await Promise.all(Array.from({ length: 20 }, () => pay(b, body, 'pay-b-0001')));
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 201));
    expect(new Set(answers.map((r) => r.body.entry._id)).size).toBe(1);
    expect(new Set(answers.map((r) => r.body.balance)).size).toBe(1);
    const after = await account(b);
    expect(after.entries.length).toBe(before + 1);
    expect(paise(after.balance)).toBe(sumOf(after.entries));
    // the same body written in another key order is the same request
    expect(
      (await pay(b, { note: 'April', method: 'cash', date: '2025-04-05', amount: 777.77 }, 'pay-b-0001')).body
        .entry._id,
    ).toBe(answers[0].body.entry._id);
    const other = await pay(b, { ...body, amount: 777.78 }, 'pay-b-0001');
    expect(other.status).toBe(422);
    // another caller's key of the same name is theirs
    const byAdmin = await t.post(`/accounts/${b.id}/payments`, body, {
      token: admin,
      headers: { 'idempotency-key': 'pay-b-0001' },
    });
    expect(byAdmin.status).toBe(201);
    expect(byAdmin.body.entry._id).not.toBe(answers[0].body.entry._id);
    expect((await account(b)).entries.length).toBe(before + 2);
  });

  it('keeps every balance equal to its entries when payments race a close and a reopen', async () => {
    expect((await present([a, b], '2025-05-02', 'Lunch')).status).toBe(201);
    expect((await spend(500, '2025-05-03')).status).toBe(201);
    const payments = (round: number) =>
      [a, b, c].map((m, i) => pay(m, { amount: 10 + i + round / 100, date: '2025-05-10', method: 'bank' }));
    const results = await Promise.all([
      ...payments(1),
      t.post('/analytics/months/2025-05/close', undefined, { token: treasurer.token }),
      ...payments(2),
    ]);
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 200, 201, 201, 201]);
    const results2 = await Promise.all([
      ...payments(3),
      t.post('/analytics/months/2025-05/reopen', undefined, { token: admin }),
      ...payments(4),
    ]);
    expect(results2.map((r) => r.status)).toEqual([201, 201, 201, 200, 201, 201, 201]);
    const list = await t.get('/accounts?limit=100', { token: treasurer.token });
    for (const m of [a, b, c]) {
      const { balance, entries } = await account(m);
      expect(paise(balance)).toBe(sumOf(entries));
      expect(list.body.accounts.find((r: { userId: { _id: string } }) => r.userId._id === m.id).balance).toBe(
        balance,
      );
      const may = entries.filter((e) => e.month === '2025-05');
      expect(sumOf(may)).toBe(0); // charged, then reversed
    }
  });

  it('the database itself refuses to change or delete a ledger row', () =>
    // The statements run in the members' mess (the first), as the service's own would: the refusal is the ledger's.
    inMess(FIRST_MESS_ID, async () => {
      const { db } = t.app.get(Database);
      const before = await entryCount();
      await expect(db.execute(sql`update account_entries set amount_paise = 1`)).rejects.toThrow();
      await expect(db.execute(sql`delete from account_entries`)).rejects.toThrow();
      await expect(db.execute(sql`truncate account_entries`)).rejects.toThrow();
      expect(await entryCount()).toBe(before);
      const [row] = (
        (await db.execute(
          sql`select count(*)::int as n from account_entries where amount_paise = 1`,
        )) as unknown as {
          rows: { n: number }[];
        }
      ).rows;
      expect(Number(row.n)).toBe(0);
    }));

  it('gives the statement as JSON, CSV and PDF, agreeing to the paisa', async () => {
    const url = `/accounts/${a.id}/statement?from=2025-04&to=2025-05`;
    const json = await t.get(url, { token: a.token });
    expect(json.status).toBe(200);
    const { opening, entries, closing } = json.body as { opening: number; entries: Entry[]; closing: number };
    // opening = the March entries (dated before April)
    const all = (await account(a)).entries;
    expect(paise(opening)).toBe(sumOf(all.filter((e) => e.date < '2025-04-01')));
    let running = paise(opening);
    expect(entries.length).toBeGreaterThan(0);
    for (const e of entries) {
      running += (e.direction === 'debit' ? 1 : -1) * paise(e.amount);
      expect(paise(e.balance!)).toBe(running);
    }
    expect(paise(closing)).toBe(running);
    expect(paise(closing)).toBe(sumOf(all.filter((e) => e.date <= '2025-05-31')));
    const dates = entries.map((e) => e.date);
    expect([...dates].sort()).toEqual(dates);
    // who recorded each entry, named as other lists name people; the close's charges were the service's own
    const upi = entries.find((e) => e.reference === 'UPI-1');
    expect(upi?.recordedByUser).toEqual({ _id: treasurer.id, fullName: 'Tara Treasurer' });
    expect(all.length).toBeGreaterThanOrEqual(entries.length);
    for (const e of all)
      expect(e.recordedByUser).toEqual(
        e.recordedBy === null ? null : { _id: e.recordedBy, fullName: expect.any(String) },
      );

    const csv = await t.get(url, { token: a.token, headers: { accept: 'text/csv' } });
    expect(csv.status).toBe(200);
    expect(String(csv.headers['content-type'])).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe(
      `attachment; filename="statement-${a.id}-2025-04-2025-05.csv"`,
    );
    const rows = parseCsv(csv.body.slice(1));
    expect(rows[0]).toEqual(STATEMENT_CSV_HEADER);
    expect(paise(Number(rows[1][7]))).toBe(paise(opening));
    // a charge's item rows (issue 24) follow it, naming its entry; the entry rows are as before
    const body = rows.slice(2, -1).filter((r: string[]) => r[2] !== 'charge_item');
    expect(body.map((r: string[]) => r[1])).toEqual(entries.map((e) => e._id));
    expect(body.map((r: string[]) => paise(Number(r[7])))).toEqual(entries.map((e) => paise(e.balance!)));
    expect(paise(Number(rows[rows.length - 1][7]))).toBe(paise(closing));

    const pdf = await t.app.inject({
      method: 'GET',
      url: `/api${url}`,
      headers: { authorization: `Bearer ${treasurer.token}`, accept: 'application/pdf' },
    });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toBe(
      `attachment; filename="statement-${a.id}-2025-04-2025-05.pdf"`,
    );
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    if (!hasPdfToText) {
      console.warn('pdftotext (poppler-utils) is not installed: the PDF text is not read back');
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), 'statement-'));
    try {
      writeFileSync(join(dir, 's.pdf'), pdf.rawPayload);
      const text = execFileSync('pdftotext', ['-layout', join(dir, 's.pdf'), '-'], { encoding: 'utf8' });
      expect(text).toContain('Hostel 7 Mess');
      expect(text).toContain('mess@college.edu');
      const rupees = (p: number) => {
        const abs = Math.abs(p);
        const r = String(Math.floor(abs / 100));
        const grouped =
          r.length > 3 ? `${r.slice(0, -3).replace(/\B(?=(\d{2})+$)/g, ',')},${r.slice(-3)}` : r;
        return `${p < 0 ? '-' : ''}₹${grouped}.${String(abs % 100).padStart(2, '0')}`;
      };
      const amounts = [...text.matchAll(/-?₹[\d,]+\.\d{2}/g)].map((m) => m[0]);
      // opening, then each entry's amount and balance, then totals and closing, in order
      const expected = [
        rupees(paise(opening)),
        ...entries.flatMap((e) => [
          rupees(paise(e.amount)),
          rupees(paise(e.balance!)),
          // a charge's item lines (meals × rate, extras) print their amounts after it
          ...((e as { items?: { particulars: string }[] }).items ?? []).flatMap((item) =>
            [...item.particulars.matchAll(/-?₹[\d,]+\.\d{2}/g)].map((m) => m[0]),
          ),
        ]),
      ];
      expect(amounts.slice(0, expected.length)).toEqual(expected);
      expect(text).toContain(`Closing balance`);
      expect(amounts.slice(expected.length, expected.length + 3).at(-1)).toBe(rupees(paise(closing)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
