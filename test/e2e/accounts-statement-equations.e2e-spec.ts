import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasPdfToText, parseCsv } from '../support/accounts';
import { messSetup, TestApp } from '../support/app';

const toPaise = (rupees: string) => Math.round(Number(rupees.replace(/,/g, '')) * 100);

/**
 * Every equation a meals line prints, checked to the paisa: `m of n meals × ₹T = ₹S` within a paisa of the exact
 * product (the largest-remainder rule), and any `q × ₹r per meal = ₹s` exact. Returns how many it checked.
 */
function checkEquations(text: string): { checked: number; false: string[] } {
  const wrong: string[] = [];
  let checked = 0;
  for (const [line, m, n, total, members, share] of text.matchAll(
    /(\d+) of (\d+) meals × ₹([\d,.]+)(?: ÷ (\d+) members)? = ₹([\d,.]+)/g,
  )) {
    checked += 1;
    const divisor = Number(n) * Number(members ?? 1);
    // |m × T ÷ divisor − S| < 1 paisa, in whole numbers
    if (Math.abs(Number(m) * toPaise(total) - toPaise(share) * divisor) >= divisor) wrong.push(line);
  }
  for (const [line, q, rate, amount] of text.matchAll(/(\d+) × ₹([\d,.]+)(?: per meal)? = ₹([\d,.]+)/g)) {
    checked += 1;
    if (Number(q) * toPaise(rate) !== toPaise(amount)) wrong.push(line);
  }
  return { checked, false: wrong };
}

/**
 * The first week: "Meals: 15 × ₹521.68 per meal = ₹7,825.19" was false on most statements of a month whose rate per
 * meal is not a whole number of paise. Every printed equation of every statement holds, in the JSON, CSV and PDF.
 */
describe('Statements print equations that hold to the paisa', () => {
  let t: TestApp;
  afterAll(() => t?.close());

  it('prints meals of all meals × the month total = share, on every statement of a month with an inexact rate', async () => {
    t = await TestApp.start();
    const admin = await t.adminToken();
    expect((await t.post('/auth/admin/setup', messSetup(), { token: admin })).status).toBe(200);
    const manager = await t.member('manager');
    const treasurer = await t.member('treasurer');
    const members = [await t.member(), await t.member(), await t.member(), await t.member()];
    // ₹1,000 over 7 meals (three members with 2, one with 1): ₹142.857… a meal; the three with 2 meals each owe
    // ₹285.714… and the paise left over by rounding go to the largest remainders.
    expect(
      (
        await t.post(
          '/expenses',
          { category: 'Groceries', amount: 1000, date: '2025-03-05', description: '' },
          { token: manager.token },
        )
      ).status,
    ).toBe(201);
    for (const [date, ids] of [
      ['2025-03-01', members.map((m) => m.id)],
      ['2025-03-02', members.slice(0, 3).map((m) => m.id)],
    ] as const) {
      const res = await t.post(
        '/attendance/bulk',
        { date, mealType: 'Lunch', marks: ids.map((userId) => ({ userId, status: 'present' })) },
        { token: manager.token },
      );
      expect(res.status).toBe(201);
    }
    expect(
      (await t.post('/analytics/months/2025-03/close', undefined, { token: treasurer.token })).status,
    ).toBe(200);

    const shares: number[] = [];
    for (const member of members) {
      const url = `/accounts/${member.id}/statement?from=2025-03&to=2025-03`;
      const json = await t.get(url, { token: member.token });
      expect(json.status).toBe(200);
      const particulars = json.body.entries.flatMap((e: { items?: { particulars: string }[] }) =>
        (e.items ?? []).map((i) => i.particulars),
      );
      expect(particulars).toHaveLength(1);
      expect(particulars[0]).toMatch(
        /^Meals: [12] of 7 meals × ₹1,000\.00 = ₹\d+\.\d\d \(about ₹142\.86 per meal, rounded; share rounded to the paisa by the largest remainder\)$/,
      );
      expect(checkEquations(particulars.join('\n'))).toEqual({ checked: 1, false: [] });
      shares.push(toPaise(particulars[0].match(/= ₹([\d,.]+)/)![1]));

      const csv = await t.get(url, { token: member.token, headers: { accept: 'text/csv' } });
      const items = parseCsv(csv.body.slice(1)).filter((r) => r[2] === 'charge_item');
      expect(items.map((r) => r[3])).toEqual(particulars);
      expect(checkEquations(items.map((r) => r[3]).join('\n'))).toEqual({ checked: 1, false: [] });

      const pdf = await t.app.inject({
        method: 'GET',
        url: `/api${url}`,
        headers: { authorization: `Bearer ${member.token}`, accept: 'application/pdf' },
      });
      expect(pdf.statusCode).toBe(200);
      if (!hasPdfToText) continue;
      const dir = mkdtempSync(join(tmpdir(), 'statement-equations-'));
      try {
        writeFileSync(join(dir, 's.pdf'), pdf.rawPayload);
        const text = execFileSync('pdftotext', ['-layout', join(dir, 's.pdf'), '-'], { encoding: 'utf8' })
          .replace(/\s+/g, ' ')
          .trim();
        expect(text).toContain(particulars[0]);
        expect(checkEquations(text)).toEqual({ checked: 1, false: [] });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    // The shares add up to the month's total; two members with as many meals differ by a paisa at most.
    expect(shares.reduce((a, b) => a + b, 0)).toBe(100_000);
    expect(shares.sort((a, b) => a - b)).toEqual([14_286, 28_571, 28_571, 28_572]);
  });
});
