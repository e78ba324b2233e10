import { sql } from 'drizzle-orm';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../../src/database/database';
import { PaymentReceiptsListener } from '../../src/modules/notifications/payment-receipts.listener';
import { messSetup, TestApp } from '../support/app';

type Member = Awaited<ReturnType<TestApp['member']>>;
interface Entry {
  _id: string;
  kind: string;
  direction: 'debit' | 'credit';
  amount: number;
  month: string | null;
  date: string;
  reverses: string | null;
  balance?: number;
}

const paise = (rupees: number) => Math.round(rupees * 100);
/** Σ debits − Σ credits of entries, in paise: what every balance must equal. */
const sumOf = (entries: Entry[]) =>
  entries.reduce((sum, e) => sum + (e.direction === 'debit' ? 1 : -1) * paise(e.amount), 0);

/** RFC 4180 rows: quoted cells may hold commas and doubled quotes. */
function parseCsv(text: string): string[][] {
  return text
    .trim()
    .split('\r\n')
    .map((line) => {
      const cells: string[] = [];
      let cell = '';
      let quoted = false;
      for (let i = 0; i < line.length; i += 1) {
        const ch = line[i];
        if (quoted && ch === '"' && line[i + 1] === '"') {
          cell += '"';
          i += 1;
        } else if (ch === '"') quoted = !quoted;
        else if (ch === ',' && !quoted) {
          cells.push(cell);
          cell = '';
        } else cell += ch;
      }
      return [...cells, cell];
    });
}

/** pdftotext (poppler-utils) reads the PDF back; the PDF assertions are skipped, saying so, when it is missing. */
const hasPdfToText = spawnSync('pdftotext', ['-v']).status === 0;

/**
 * Fixture, March 2025: expenses ₹6,000 + ₹3,001.01 = ₹9,001.01; meals A 3, B 2, C 1. Proportional (the default
 * chargeMethod) charges 9001.01 × m/6 to the paisa: exact shares 4500.505, 3000.336…, 1500.168…; the two paise
 * left go to the largest remainders (C, then B): A 4500.50, B 3000.34, C 1500.17.
 */
describe('Member accounts', () => {
  let t: TestApp;
  let admin: string;
  let manager: Member;
  let treasurer: Member;
  let a: Member;
  let b: Member;
  let c: Member;

  const spend = (amount: number, date: string) =>
    t.post('/expenses', { category: 'Groceries', amount, date, description: '' }, { token: manager.token });
  const present = (members: Member[], date: string, mealType: string) =>
    t.post(
      '/attendance/bulk',
      { date, mealType, marks: members.map((m) => ({ userId: m.id, status: 'present' })) },
      { token: manager.token },
    );
  const account = async (m: Member, limit = 100) => {
    const res = await t.get(`/accounts/${m.id}?limit=${limit}`, { token: treasurer.token });
    expect(res.status).toBe(200);
    return res.body as { balance: number; entries: Entry[]; pagination: { total: number } };
  };
  const pay = (m: Member, body: Record<string, unknown>, key?: string) =>
    t.post(`/accounts/${m.id}/payments`, body, {
      token: treasurer.token,
      ...(key ? { headers: { 'idempotency-key': key } } : {}),
    });
  const entryCount = async () => {
    const rows = await t.app.get(Database).db.execute(sql`select count(*)::int as n from account_entries`);
    return Number((rows as unknown as { rows: { n: number }[] }).rows[0].n);
  };

  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.adminToken();
    await t.post('/auth/admin/setup', messSetup(), { token: admin });
    manager = await t.member('manager', { fullName: 'Meera Manager' });
    treasurer = await t.member('treasurer', { fullName: 'Tara Treasurer' });
    a = await t.member('student', { fullName: 'A Member' });
    b = await t.member('student', { fullName: 'B Member' });
    c = await t.member('student', { fullName: 'C Member' });
    expect((await spend(6000, '2025-03-05')).status).toBe(201);
    expect((await spend(3001.01, '2025-03-20')).status).toBe(201);
    expect((await present([a, b, c], '2025-03-01', 'Lunch')).status).toBe(201);
    expect((await present([a, b], '2025-03-02', 'Lunch')).status).toBe(201);
    expect((await present([a], '2025-03-03', 'Dinner')).status).toBe(201);
  }, 120_000);
  afterAll(() => t?.close());

  it('returns chargeMethod in the configuration (proportional by default) and uses it when no method is given', async () => {
    const config = await t.get('/auth/admin/config', { token: admin });
    expect(config.body.config.chargeMethod).toBe('proportional');
    const bill = await t.get('/analytics/shares?month=2025-03', { token: treasurer.token });
    expect(bill.body).toMatchObject({ method: 'proportional', allocated: 9001.01, unallocated: 0 });
    const mine = await t.get('/analytics/shares/me?month=2025-03', { token: a.token });
    expect(mine.body).toMatchObject({ method: 'proportional', share: 4500.5 });
    const csv = await t.get('/analytics/shares.csv?month=2025-03', { token: treasurer.token });
    expect(csv.headers['content-disposition']).toBe(
      'attachment; filename="mess-bill-2025-03-proportional.csv"',
    );

    const bad = await t.put('/auth/admin/config', messSetup({ chargeMethod: 'equal' }), { token: admin });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([
      { field: 'chargeMethod', message: 'chargeMethod must be one of spec, proportional' },
    ]);
    const spec = await t.put('/auth/admin/config', messSetup({ chargeMethod: 'spec' }), { token: admin });
    expect(spec.status).toBe(200);
    expect(spec.body.config.chargeMethod).toBe('spec');
    expect((await t.get('/analytics/shares?month=2025-03', { token: treasurer.token })).body.method).toBe(
      'spec',
    );
    // PUT replaces the whole configuration: left out, chargeMethod returns to its default
    const back = await t.put('/auth/admin/config', messSetup(), { token: admin });
    expect(back.body.config.chargeMethod).toBe('proportional');
  });

  it('closing a month charges each member their frozen share; payments, adjustments and reversals move the balance', async () => {
    const closed = await t.post('/analytics/months/2025-03/close', undefined, { token: treasurer.token });
    expect(closed.status).toBe(200);
    expect(closed.body.method).toBe('proportional');
    const frozen = new Map<string, number>(
      closed.body.shares.map((s: { userId: string; share: number }) => [s.userId, s.share]),
    );
    expect([...frozen.values()].sort()).toEqual([1500.17, 3000.34, 4500.5]);
    for (const m of [a, b, c]) {
      const { balance, entries } = await account(m);
      expect(entries).toEqual([
        expect.objectContaining({ kind: 'charge', direction: 'debit', month: '2025-03', date: '2025-03-31' }),
      ]);
      expect(entries[0].amount).toBe(frozen.get(m.id));
      expect(balance).toBe(frozen.get(m.id));
    }
    const list = await t.get('/accounts', { token: treasurer.token });
    expect(list.status).toBe(200);
    expect(list.body.totals).toEqual({ due: 9001.01, credit: 0 });
    expect(
      list.body.accounts.slice(0, 3).map((r: { userId: { fullName: string } }) => r.userId.fullName),
    ).toEqual(['A Member', 'B Member', 'C Member']);

    // payment: a credit, with the receipt queued for the member
    const paid = await pay(a, { amount: 5000, date: '2025-04-02', method: 'upi', reference: 'UPI-1' });
    expect(paid.status).toBe(201);
    expect(paid.body.entry).toMatchObject({
      kind: 'payment',
      direction: 'credit',
      amount: 5000,
      method: 'upi',
    });
    expect(paid.body.balance).toBe(-499.5);
    await t.app.get(PaymentReceiptsListener).idle();
    const inbox = await t.get('/notifications', { token: a.token });
    expect(inbox.body.notifications.map((n: { type: string }) => n.type)).toContain('PAYMENT_RECEIVED');

    // adjustment: a debit note; then its reversal
    const adjusted = await t.post(
      `/accounts/${a.id}/adjustments`,
      { direction: 'debit', amount: 120.5, note: 'Guest meal' },
      { token: treasurer.token },
    );
    expect(adjusted.status).toBe(201);
    expect(adjusted.body.balance).toBe(-379);
    const reversed = await t.post(
      `/accounts/entries/${adjusted.body.entry._id}/reverse`,
      { note: 'Entered for the wrong member' },
      { token: treasurer.token },
    );
    expect(reversed.status).toBe(201);
    expect(reversed.body.entry).toMatchObject({ kind: 'reversal', direction: 'credit', amount: 120.5 });
    expect(reversed.body.balance).toBe(-499.5);

    // the reversal rules
    const again = await t.post(
      `/accounts/entries/${adjusted.body.entry._id}/reverse`,
      { note: 'x' },
      { token: treasurer.token },
    );
    expect(again.status).toBe(409);
    const ofReversal = await t.post(
      `/accounts/entries/${reversed.body.entry._id}/reverse`,
      { note: 'x' },
      { token: treasurer.token },
    );
    expect(ofReversal.status).toBe(409);
    const charge = (await account(b)).entries[0];
    const ofCharge = await t.post(
      `/accounts/entries/${charge._id}/reverse`,
      { note: 'x' },
      { token: treasurer.token },
    );
    expect(ofCharge.status).toBe(409);
    expect(ofCharge.body.error).toMatch(/reopen the month/);
    expect(
      (await t.post(`/accounts/entries/${b.id}/reverse`, { note: 'x' }, { token: treasurer.token })).status,
    ).toBe(404);

    // an opening balance, once
    const opening = await t.post(
      `/accounts/${c.id}/opening`,
      { direction: 'debit', amount: 250, note: 'Carried over from the old register' },
      { token: treasurer.token },
    );
    expect(opening.status).toBe(201);
    expect(opening.body.balance).toBe(1750.17);
    const twice = await t.post(
      `/accounts/${c.id}/opening`,
      { direction: 'credit', amount: 1, note: 'again' },
      { token: treasurer.token },
    );
    expect(twice.status).toBe(409);

    for (const m of [a, b, c]) {
      const { balance, entries } = await account(m);
      expect(paise(balance)).toBe(sumOf(entries));
    }
    const credit = await t.get('/accounts?status=credit', { token: treasurer.token });
    expect(credit.body.accounts).toEqual([
      { userId: { _id: a.id, fullName: 'A Member' }, balance: -499.5, lastPaymentAt: '2025-04-02' },
    ]);
    expect(credit.body.totals).toEqual({ due: 0, credit: 499.5 });
    const due = await t.get('/accounts?status=due&limit=1&page=2', { token: treasurer.token });
    expect(due.body.accounts).toHaveLength(1);
    expect(due.body.pagination.total).toBe(2);
    expect(due.body.totals.due).toBe(4750.51); // 3000.34 + 1750.17, over every page
  });

  it('reopening posts reversals of the charges and a second close posts the new ones', async () => {
    const reopened = await t.post('/analytics/months/2025-03/reopen', undefined, { token: admin });
    expect(reopened.status).toBe(200);
    const { balance: bAfterReopen, entries } = await account(b);
    expect(entries[0]).toMatchObject({
      kind: 'reversal',
      direction: 'credit',
      amount: 3000.34,
      month: '2025-03',
      date: '2025-03-31',
    });
    expect(entries[0].reverses).toBe(entries[1]._id);
    expect(bAfterReopen).toBe(0);
    // a later expense and a meal for C change the bill; the second close charges the new shares
    expect((await spend(998.99, '2025-03-25')).status).toBe(201);
    expect((await present([c], '2025-03-04', 'Lunch')).status).toBe(201);
    const closed = await t.post('/analytics/months/2025-03/close', undefined, { token: treasurer.token });
    expect(closed.status).toBe(200);
    expect(closed.body.allocated).toBe(10000);
    const shares = new Map<string, number>(
      closed.body.shares.map((s: { userId: string; share: number }) => [s.userId, s.share]),
    );
    expect([...shares.values()].reduce((x, y) => x + paise(y), 0)).toBe(1_000_000);

    const history = (await account(b)).entries.map((e) => [e.kind, e.amount]);
    expect(history).toEqual([
      ['charge', shares.get(b.id)],
      ['reversal', 3000.34],
      ['charge', 3000.34],
    ]);
    const list = await t.get('/accounts', { token: treasurer.token });
    for (const m of [a, b, c]) {
      const { balance, entries: all } = await account(m);
      expect(paise(balance)).toBe(sumOf(all));
      const charges = all.filter((e) => e.kind === 'charge' && e.month === '2025-03');
      const reversals = all.filter((e) => e.kind === 'reversal' && e.month === '2025-03');
      expect(charges).toHaveLength(2);
      expect(reversals).toHaveLength(1);
      const standing = charges.find((e) => !reversals.some((r) => r.reverses === e._id))!;
      expect(standing.amount).toBe(shares.get(m.id));
      const line = list.body.accounts.find((r: { userId: { _id: string } }) => r.userId._id === m.id);
      expect(line.balance).toBe(balance);
    }
    // the audit trail has every close and reopen of the month, and every entry recorded by hand
    const monthAudit = await t.get('/audit?entity=month&entityId=2025-03', { token: treasurer.token });
    expect(monthAudit.body.events.map((e: { action: string }) => e.action)).toEqual([
      'closed',
      'reopened',
      'closed',
    ]);
    expect(monthAudit.body.events[0].after).toMatchObject({
      chargeMethod: 'proportional',
      chargedPaise: 1_000_000,
    });
    const accountAudit = await t.get(`/audit?entity=account&entityId=${a.id}`, { token: treasurer.token });
    expect(accountAudit.body.events.map((e: { action: string }) => e.action)).toEqual([
      'reversed',
      'adjustment-recorded',
      'payment-recorded',
    ]);
    expect(accountAudit.body.events[2]).toMatchObject({
      actor: { _id: treasurer.id },
      after: { kind: 'payment', amountPaise: 500_000, method: 'upi' },
    });
    const months = await t.get('/analytics/months', { token: treasurer.token });
    expect(months.status).toBe(200);
    expect(months.body.months).toContainEqual({
      month: '2025-03',
      closed: true,
      closedAt: expect.any(String),
      closedBy: { _id: treasurer.id, fullName: 'Tara Treasurer' },
    });
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

  it('the database itself refuses to change or delete a ledger row', async () => {
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
  });

  it('gives the statement as JSON, CSV and PDF, agreeing to the paisa', async () => {
    const url = `/accounts/${a.id}/statement?from=2025-04&to=2025-05`;
    const json = await t.get(url, { token: a.token });
    expect(json.status).toBe(200);
    const { opening, entries, closing } = json.body as { opening: number; entries: Entry[]; closing: number };
    // opening = the March entries (dated before April)
    const all = (await account(a)).entries;
    expect(paise(opening)).toBe(sumOf(all.filter((e) => e.date < '2025-04-01')));
    let running = paise(opening);
    for (const e of entries) {
      running += (e.direction === 'debit' ? 1 : -1) * paise(e.amount);
      expect(paise(e.balance!)).toBe(running);
    }
    expect(paise(closing)).toBe(running);
    expect(paise(closing)).toBe(sumOf(all.filter((e) => e.date <= '2025-05-31')));
    const dates = entries.map((e) => e.date);
    expect([...dates].sort()).toEqual(dates);

    const csv = await t.get(url, { token: a.token, headers: { accept: 'text/csv' } });
    expect(csv.status).toBe(200);
    expect(String(csv.headers['content-type'])).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe(
      `attachment; filename="statement-${a.id}-2025-04-2025-05.csv"`,
    );
    const rows = parseCsv(csv.body.slice(1));
    expect(rows[0]).toEqual([
      'date',
      'entry_id',
      'kind',
      'particulars',
      'month',
      'debit_inr',
      'credit_inr',
      'balance_inr',
    ]);
    expect(paise(Number(rows[1][7]))).toBe(paise(opening));
    const body = rows.slice(2, -1);
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
        ...entries.flatMap((e) => [rupees(paise(e.amount)), rupees(paise(e.balance!))]),
      ];
      expect(amounts.slice(0, expected.length)).toEqual(expected);
      expect(text).toContain(`Closing balance`);
      expect(amounts.slice(expected.length, expected.length + 3).at(-1)).toBe(rupees(paise(closing)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
