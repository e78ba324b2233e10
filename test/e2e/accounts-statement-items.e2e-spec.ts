import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { FIRST_MESS_ID, inMess } from '../../src/common/tenancy/mess-scope';
import { Database } from '../../src/database/database';
import { hasPdfToText, paise, parseCsv, STATEMENT_CSV_HEADER } from '../support/accounts';
import { messSetup, TestApp } from '../support/app';

interface Item {
  particulars: string;
  quantity: number;
  unitPrice: number | null;
  amount: number;
}

/**
 * A statement a member can read: a real month closed with meals and extras, then the statement as JSON, CSV and PDF
 * (read back with pdftotext) naming the member, their college id and the mess, and itemising the month's charge —
 * meals × the rate per meal, extras by item — alike to the paisa.
 */
describe('Statements itemise a closed month: meals × the rate, extras by item, the member named', () => {
  let t: TestApp;
  afterAll(() => t?.close());

  it('shows the same member, mess and items in the JSON, the CSV and the PDF', async () => {
    t = await TestApp.start();
    const admin = await t.adminToken();
    const catalogue = [
      { name: 'Egg', price: 12.5 },
      { name: 'Sweet', price: 30 },
    ];
    expect(
      (await t.post('/auth/admin/setup', messSetup({ extraItems: catalogue }), { token: admin })).status,
    ).toBe(200);
    const manager = await t.member('manager');
    const treasurer = await t.member('treasurer');
    const asha = await t.member('student', { fullName: 'Asha Verma' });
    const ravi = await t.member('student', { fullName: 'Ravi Kumar' });
    const [{ college_id: collegeId }] = (
      (await inMess(FIRST_MESS_ID, () =>
        t.app.get(Database).db.execute(sql`select college_id from users where id = ${asha.id}`),
      )) as unknown as {
        rows: { college_id: string }[];
      }
    ).rows;
    expect(collegeId).toMatch(/\S/);

    // March 2025: ₹6,000 spent, 4 meals (Asha 3, Ravi 1): ₹1,500 a meal; Asha's extras 5 eggs and a sweet
    const spent = await t.post(
      '/expenses',
      { category: 'Groceries', amount: 6000, date: '2025-03-05', description: '' },
      { token: manager.token },
    );
    expect(spent.status).toBe(201);
    const mark = (date: string, mealType: string, ids: string[]) =>
      t.post(
        '/attendance/bulk',
        { date, mealType, marks: ids.map((userId) => ({ userId, status: 'present' })) },
        { token: manager.token },
      );
    expect((await mark('2025-03-01', 'Lunch', [asha.id, ravi.id])).status).toBe(201);
    expect((await mark('2025-03-02', 'Lunch', [asha.id])).status).toBe(201);
    expect((await mark('2025-03-03', 'Dinner', [asha.id])).status).toBe(201);
    for (const extra of [
      { date: '2025-03-05', item: 'Egg', quantity: 3 },
      { date: '2025-03-06', item: 'Egg', quantity: 2 },
      { date: '2025-03-07', item: 'Sweet', quantity: 1 },
    ]) {
      expect((await t.post('/extras', { ...extra, userId: asha.id }, { token: manager.token })).status).toBe(
        201,
      );
    }
    expect(
      (await t.post('/analytics/months/2025-03/close', undefined, { token: treasurer.token })).status,
    ).toBe(200);

    const url = `/accounts/${asha.id}/statement?from=2025-03&to=2025-03`;
    const json = await t.get(url, { token: asha.token });
    expect(json.status).toBe(200);
    expect(json.body).toMatchObject({
      member: { _id: asha.id, fullName: 'Asha Verma' },
      collegeId,
      mess: { name: 'Hostel 7 Mess', email: 'mess@college.edu', phone: expect.stringMatching(/8012345678/) },
    });
    const [charge] = json.body.entries;
    expect(json.body.entries).toHaveLength(1);
    expect(charge).toMatchObject({ kind: 'charge', month: '2025-03', amount: 4592.5 });
    expect(charge.breakdown).toEqual({
      method: 'proportional',
      meals: 3,
      ratePerMeal: 1500,
      mealsAmount: 4500,
      extras: [
        { item: 'Egg', quantity: 5, unitPrice: 12.5, amount: 62.5 },
        { item: 'Sweet', quantity: 1, unitPrice: 30, amount: 30 },
      ],
      extrasAmount: 92.5,
    });
    const items = charge.items as Item[];
    expect(items).toEqual([
      {
        particulars: 'Meals: 3 of 4 meals × ₹6,000.00 = ₹4,500.00 (₹1,500.00 per meal)',
        quantity: 3,
        unitPrice: 1500,
        amount: 4500,
      },
      { particulars: 'Extra: Egg 5 × ₹12.50 = ₹62.50', quantity: 5, unitPrice: 12.5, amount: 62.5 },
      { particulars: 'Extra: Sweet 1 × ₹30.00 = ₹30.00', quantity: 1, unitPrice: 30, amount: 30 },
    ]);
    // the items add up to the charge, to the paisa
    expect(items.reduce((sum, i) => sum + paise(i.amount), 0)).toBe(paise(charge.amount));

    // CSV: the charge, then its items (quantity, unit price, amount in their own columns); every row names the member
    const csv = await t.get(url, { token: asha.token, headers: { accept: 'text/csv' } });
    expect(csv.status).toBe(200);
    const rows = parseCsv(csv.body.slice(1));
    expect(rows[0]).toEqual(STATEMENT_CSV_HEADER);
    for (const row of rows.slice(1)) expect(row.slice(11)).toEqual(['Asha Verma', collegeId]);
    expect(rows[2].slice(1, 6)).toEqual([charge._id, 'charge', 'Mess bill 2025-03', '2025-03', '4592.50']);
    const itemRows = rows.filter((r) => r[2] === 'charge_item');
    expect(itemRows.map((r) => [r[1], r[3], r[5], r[8], r[9], r[10]])).toEqual(
      items.map((i) => [
        charge._id,
        i.particulars,
        '',
        String(i.quantity),
        i.unitPrice === null ? '' : i.unitPrice.toFixed(2),
        i.amount.toFixed(2),
      ]),
    );
    // the debit column still sums to the charges alone
    const debits = rows.slice(1, -1).reduce((sum, r) => sum + (r[5] ? paise(Number(r[5])) : 0), 0);
    expect(debits).toBe(paise(charge.amount));

    // PDF, read back
    const pdf = await t.app.inject({
      method: 'GET',
      url: `/api${url}`,
      headers: { authorization: `Bearer ${asha.token}`, accept: 'application/pdf' },
    });
    expect(pdf.statusCode).toBe(200);
    if (!hasPdfToText) {
      console.warn('pdftotext (poppler-utils) is not installed: the PDF text is not read back');
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), 'statement-items-'));
    try {
      writeFileSync(join(dir, 's.pdf'), pdf.rawPayload);
      const text = execFileSync('pdftotext', ['-layout', join(dir, 's.pdf'), '-'], { encoding: 'utf8' })
        .replace(/\s+/g, ' ')
        .trim();
      expect(text).toContain('Hostel 7 Mess');
      expect(text).toContain('mess@college.edu');
      expect(text).toContain(`Member: Asha Verma, college id ${collegeId}`);
      expect(text).toContain('Mess bill 2025-03 ₹4,592.50');
      // each item line as the JSON gives it, in order, after the charge
      let at = text.indexOf('Mess bill 2025-03');
      for (const item of items) {
        const found = text.indexOf(item.particulars, at);
        expect({ item: item.particulars, found: found > at }).toEqual({
          item: item.particulars,
          found: true,
        });
        at = found;
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
