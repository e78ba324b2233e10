import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasPdfToText, paise, parseCsv } from '../support/accounts';
import { messSetup, TestApp } from '../support/app';
import { fixClock } from '../support/notifications';

type Member = Awaited<ReturnType<TestApp['member']>>;

/** An instant of the mess's clock (Asia/Kolkata, +05:30). */
const ist = (date: string, time: string) => new Date(`${date}T${time}:00+05:30`);

interface Item {
  particulars: string;
  quantity: number;
  unitPrice: number | null;
  amount: number;
}

/**
 * Extension 2.3, the daily rate: the worked examples of the spec, at ₹123.45 a day with the bands 3 days 75 %,
 * 5 days 90 %, 8 days 100 % and a cap of 10 rebated days a term (terms from January and July). Everyone below is
 * put on the rolls of the main mess on 20 February 2026 (a change of dining, the way a member joins the rolls
 * without a new approval); March has 31 days, 31 × ₹123.45 = ₹3,826.95.
 *
 * - Asha: a 2-day leave, below every band: no rebate.
 * - Bala: 4 days at 75 %: 4 × 12345 × 75 / 100 = 37035 paise.
 * - Chitra: 6 days at 90 %: 66663 paise.
 * - Dev: 9 days at 100 % (111105), then 4 days at 75 % of which 1 is under the cap of 10: 9258.75 → 9259 paise.
 * - Esha: from Dinner of 3 March to Lunch of 8 March: 4 full days (4–7 March), so 75 %: 37035 paise.
 * - Farah: a 5-day leave, cancelled: nothing.
 * - Gopal: rejected and approved again on 20 February, moved to the annexe (₹100 a day) on 10 March: the main
 *   mess bills him 9 days (1–9 March), the annexe 22 (10–31 March).
 * - Hari: 29 March to 3 April, 6 full days at 90 %: March rebates its 3 days, 33331.5 → 33332 paise; April the
 *   other 3, the same.
 */
describe('The daily rate (extension 2.3)', () => {
  let t: TestApp;
  let admin: string;
  let manager: Member;
  let treasurer: Member;
  let annexeTreasurer: Member;
  const m: Record<string, Member> = {};
  const leaves: Record<string, string> = {};

  const DAILY = {
    chargeMethod: 'daily',
    dailyRate: 123.45,
    rebateBands: [
      { minDays: 5, percent: 90 },
      { minDays: 3, percent: 75 },
      { minDays: 8, percent: 100 },
    ],
    rebateDaysPerTerm: 10,
  };

  const leave = async (who: string, body: Record<string, unknown>) => {
    const res = await t.post('/leaves', { ...body, userId: m[who].id }, { token: manager.token });
    expect({ who, status: res.status, leave: res.body.leave?.status }).toEqual({
      who,
      status: 201,
      leave: 'approved',
    });
    return res.body.leave._id as string;
  };

  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.adminToken();
    fixClock(t, ist('2026-02-20', '10:00'));
  }, 90_000);
  afterAll(() => t?.close());

  it('configures the daily rate: defaults, validation naming each bad field, nothing changed', async () => {
    const setup = await t.post('/auth/admin/setup', messSetup(), { token: admin });
    expect(setup.status).toBe(200);
    expect(setup.body.config).toMatchObject({
      chargeMethod: 'proportional',
      rebateBands: [{ minDays: 1, percent: 100 }],
      rebateDaysPerTerm: 0,
      termStartMonths: [1, 7],
    });
    expect(setup.body.config).not.toHaveProperty('dailyRate');
    // No daily rate yet: method=daily is 400 naming method.
    const noRate = await t.get('/analytics/shares?month=2026-03&method=daily', { token: admin });
    expect(noRate.status).toBe(400);
    expect(noRate.body.details.map((d: { field: string }) => d.field)).toEqual(['method']);

    const before = (await t.get('/auth/admin/config', { token: admin })).body.config;
    const bad = await t.patch(
      '/auth/admin/config',
      {
        chargeMethod: 'daily',
        rebateBands: [
          { minDays: 3, percent: 75 },
          { minDays: 3, percent: 101 },
        ],
        rebateDaysPerTerm: 367,
        termStartMonths: [1, 13, 1],
      },
      { token: admin },
    );
    expect(bad.status).toBe(400);
    const fields = bad.body.details.map((d: { field: string }) => d.field);
    for (const field of ['rebateBands.1.percent', 'rebateDaysPerTerm', 'termStartMonths']) {
      expect(fields).toEqual(expect.arrayContaining([expect.stringContaining(field)]));
    }
    const noDailyRate = await t.patch('/auth/admin/config', { chargeMethod: 'daily' }, { token: admin });
    expect(noDailyRate.status).toBe(400);
    expect(noDailyRate.body.details).toEqual([
      { field: 'dailyRate', message: "dailyRate is required when chargeMethod is 'daily'" },
    ]);
    for (const dailyRate of [0, 10000.01, 1.234, 'ten']) {
      const res = await t.patch('/auth/admin/config', { dailyRate }, { token: admin });
      expect({ dailyRate, status: res.status }).toEqual({ dailyRate, status: 400 });
      expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(['dailyRate']);
    }
    const repeated = await t.patch(
      '/auth/admin/config',
      {
        dailyRate: 10,
        rebateBands: [
          { minDays: 2, percent: 50 },
          { minDays: 2, percent: 60 },
        ],
        termStartMonths: [4, 4],
      },
      { token: admin },
    );
    expect(repeated.status).toBe(400);
    expect(repeated.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'rebateBands.1.minDays',
      'termStartMonths.1',
    ]);
    const after = (await t.get('/auth/admin/config', { token: admin })).body.config;
    expect({ ...after, today: undefined }).toEqual({ ...before, today: undefined });

    const set = await t.patch('/auth/admin/config', DAILY, { token: admin });
    expect(set.status).toBe(200);
    expect(set.body.config).toMatchObject({
      chargeMethod: 'daily',
      dailyRate: 123.45,
      // kept in order of minDays
      rebateBands: [
        { minDays: 3, percent: 75 },
        { minDays: 5, percent: 90 },
        { minDays: 8, percent: 100 },
      ],
      rebateDaysPerTerm: 10,
      termStartMonths: [1, 7],
    });
    // The rate cannot go while the mess charges by it.
    const removing = await t.patch('/auth/admin/config', { dailyRate: null }, { token: admin });
    expect(removing.status).toBe(400);
    expect(removing.body.details.map((d: { field: string }) => d.field)).toEqual(['dailyRate']);

    // POST /messes takes the same fields; a PUT leaving them out returns them to their defaults.
    const annexe = await t.post(
      '/messes',
      messSetup({ messName: 'Annexe', slug: 'annexe', chargeMethod: 'daily', dailyRate: 100 }),
      { token: admin },
    );
    expect(annexe.status).toBe(201);
    const annexeConfig = await t.get('/auth/admin/config?mess=annexe', { token: admin });
    expect(annexeConfig.body.config).toMatchObject({
      chargeMethod: 'daily',
      dailyRate: 100,
      rebateBands: [{ minDays: 1, percent: 100 }],
      rebateDaysPerTerm: 0,
      termStartMonths: [1, 7],
    });
    const badMess = await t.post(
      '/messes',
      messSetup({ messName: 'Third', slug: 'third', chargeMethod: 'daily', termStartMonths: [1, 1] }),
      { token: admin },
    );
    expect(badMess.status).toBe(400);
    expect(badMess.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'dailyRate',
      'termStartMonths.1',
    ]);
    expect((await t.get('/messes/third', { token: admin })).status).toBe(404);
  });

  it('bills the worked examples of the spec to the paisa', async () => {
    manager = await t.member('manager');
    treasurer = await t.member('treasurer');
    annexeTreasurer = await t.member('treasurer', {
      messId: (await t.get('/messes/annexe', { token: admin })).body.mess._id,
    });
    for (const name of ['Asha', 'Bala', 'Chitra', 'Dev', 'Esha', 'Farah', 'Gopal', 'Hari']) {
      m[name] = await t.member('student', { fullName: name });
      if (name === 'Gopal') {
        // Through an approval: rejected, then approved again.
        expect((await t.put(`/users/${m[name].id}/reject`, undefined, { token: admin })).status).toBe(200);
        expect((await t.put(`/users/${m[name].id}/approve`, undefined, { token: admin })).status).toBe(200);
      } else if (name === 'Hari') {
        // Through a bulk approval.
        expect((await t.put(`/users/${m[name].id}/reject`, undefined, { token: admin })).status).toBe(200);
        expect((await t.post('/users/approve', { userIds: [m[name].id] }, { token: admin })).status).toBe(
          200,
        );
      } else {
        for (const dines of [false, true]) {
          expect((await t.put(`/users/${m[name].id}/dines`, { dines }, { token: admin })).status).toBe(200);
        }
      }
    }
    await leave('Asha', { startDate: '2026-03-03', endDate: '2026-03-04' });
    await leave('Bala', { startDate: '2026-03-05', endDate: '2026-03-08' });
    await leave('Chitra', { startDate: '2026-03-10', endDate: '2026-03-15' });
    leaves.dev1 = await leave('Dev', { startDate: '2026-03-02', endDate: '2026-03-10' });
    leaves.dev2 = await leave('Dev', { startDate: '2026-03-15', endDate: '2026-03-18' });
    await leave('Esha', {
      startDate: '2026-03-03',
      startMealType: 'Dinner',
      endDate: '2026-03-08',
      endMealType: 'Lunch',
    });
    leaves.farah = await leave('Farah', { startDate: '2026-03-20', endDate: '2026-03-24' });
    expect((await t.put(`/leaves/${leaves.farah}/cancel`, undefined, { token: manager.token })).status).toBe(
      200,
    );
    await leave('Hari', { startDate: '2026-03-29', endDate: '2026-04-03' });

    fixClock(t, ist('2026-03-10', '10:00'));
    expect((await t.put(`/users/${m.Gopal.id}/mess`, { mess: 'annexe' }, { token: admin })).status).toBe(200);
    expect(
      (
        await t.post(
          '/expenses',
          { category: 'Groceries', amount: 20000, date: '2026-03-05', description: 'Contractor, first half' },
          { token: manager.token },
        )
      ).status,
    ).toBe(201);

    const bill = await t.get('/analytics/shares?month=2026-03', { token: treasurer.token });
    expect(bill.status).toBe(200);
    const line = (name: string, days: number, leaveDays: number, rebatedDays: number, rebate: number) => ({
      userId: { _id: m[name].id, fullName: name },
      fullName: name,
      meals: 0,
      days,
      leaveDays,
      rebatedDays,
      rebate: rebate / 100,
      share: (days * 12345 - rebate) / 100,
      extras: 0,
      total: (days * 12345 - rebate) / 100,
    });
    const expected = [
      line('Asha', 31, 2, 0, 0),
      line('Bala', 31, 4, 4, 37035),
      line('Chitra', 31, 6, 6, 66663),
      line('Dev', 31, 13, 10, 111105 + 9259),
      line('Esha', 31, 4, 4, 37035),
      line('Farah', 31, 0, 0, 0),
      line('Gopal', 9, 0, 0, 0),
      line('Hari', 31, 3, 3, 33332),
    ];
    expect(bill.body).toMatchObject({
      success: true,
      month: '2026-03',
      method: 'daily',
      dailyRate: 123.45,
      totalExpenses: 20000,
      allocated: 24955.41,
      totalExtras: 0,
      totalBilled: 24955.41,
      surplus: 4955.41,
      closed: false,
    });
    expect(bill.body.shares).toEqual(expected);
    // Σ share = Σ days × rate − Σ rebates, to the paisa
    const sum = (key: 'share' | 'rebate') =>
      (bill.body.shares as Record<string, number>[]).reduce((s, l) => s + paise(l[key]), 0);
    expect(sum('share')).toBe((7 * 31 + 9) * 12345 - sum('rebate'));

    // The annexe bills Gopal from the day of the move: 22 days at ₹100.
    const annexeBill = await t.get('/analytics/shares?month=2026-03', { token: annexeTreasurer.token });
    expect(annexeBill.body.shares).toEqual([
      {
        userId: { _id: m.Gopal.id, fullName: 'Gopal' },
        fullName: 'Gopal',
        meals: 0,
        days: 22,
        leaveDays: 0,
        rebatedDays: 0,
        rebate: 0,
        share: 2200,
        extras: 0,
        total: 2200,
      },
    ]);
    expect(annexeBill.body.surplus).toBe(2200);
    // Gopal reads his own line in each mess: the annexe's (his own now) and the main mess's (`mess=`, one he left).
    const login = await t.post('/auth/login', { email: m.Gopal.email, password: m.Gopal.password });
    expect(login.status).toBe(200);
    const gopal = login.body.token as string;
    const own = await t.get('/analytics/shares/me?month=2026-03', { token: gopal });
    expect(own.body).toMatchObject({ days: 22, share: 2200, total: 2200, dailyRate: 100 });
    const left = await t.get('/analytics/shares/me?month=2026-03&mess=main', { token: gopal });
    expect(left.body).toMatchObject({ days: 9, share: 1111.05, total: 1111.05, dailyRate: 123.45 });

    // April: the rest of Hari's leave (3 days at 90 %); Hari's term already counts 3 days of its cap.
    const april = await t.get('/analytics/shares?month=2026-04', { token: treasurer.token });
    const hari = april.body.shares.find((s: { fullName: string }) => s.fullName === 'Hari');
    expect(hari).toMatchObject({ days: 30, leaveDays: 3, rebatedDays: 3, rebate: 333.32 });

    // The member's own line, and the CSV.
    const mine = await t.get('/analytics/shares/me?month=2026-03', { token: m.Dev.token });
    expect(mine.body).toMatchObject({
      success: true,
      method: 'daily',
      days: 31,
      leaveDays: 13,
      rebatedDays: 10,
      dailyRate: 123.45,
      rebate: 1203.64,
      share: 2623.31,
      extras: 0,
      total: 2623.31,
      totalExpenses: 20000,
    });
    const csv = await t.get('/analytics/shares.csv?month=2026-03', { token: treasurer.token });
    expect(csv.status).toBe(200);
    const rows = parseCsv(csv.body.slice(1));
    expect(rows[0]).toEqual([
      'month',
      'member_id',
      'full_name',
      'days',
      'leave_days',
      'rebated_days',
      'daily_rate_inr',
      'days_inr',
      'rebate_inr',
      'share_inr',
      'extras_inr',
      'total_inr',
      'method',
      'closed',
    ]);
    expect(rows.slice(1).map((r) => [r[2], r[3], r[8], r[11]])).toEqual(
      expected.map((l) => [l.fullName, String(l.days), l.rebate.toFixed(2), l.total.toFixed(2)]),
    );

    // The other methods are unchanged: by meals, nobody ate, nothing is shared.
    const proportional = await t.get('/analytics/shares?month=2026-03&method=proportional', {
      token: treasurer.token,
    });
    expect(proportional.body).toMatchObject({ method: 'proportional', allocated: 0, shares: [] });
  });

  it('closes the month charging each total, itemises the statement in three formats, and reopens', async () => {
    fixClock(t, ist('2026-04-01', '10:00'));
    const closed = await t.post('/analytics/months/2026-03/close', undefined, { token: treasurer.token });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ method: 'daily', closed: true, allocated: 24955.41 });

    const url = `/accounts/${m.Dev.id}/statement?from=2026-03&to=2026-03`;
    const json = await t.get(url, { token: treasurer.token });
    expect(json.status).toBe(200);
    const [charge] = json.body.entries;
    expect(charge).toMatchObject({ kind: 'charge', month: '2026-03', amount: 2623.31 });
    expect(charge.breakdown).toMatchObject({
      method: 'daily',
      mealsAmount: 2623.31,
      daily: {
        days: 31,
        dailyRate: 123.45,
        daysAmount: 3826.95,
        rebates: [
          {
            startDate: '2026-03-02',
            endDate: '2026-03-10',
            startMealType: 'Breakfast',
            endMealType: 'Dinner',
            days: 9,
            rebatedDays: 9,
            percent: 100,
            amount: 1111.05,
          },
          {
            startDate: '2026-03-15',
            endDate: '2026-03-18',
            startMealType: 'Breakfast',
            endMealType: 'Dinner',
            days: 4,
            rebatedDays: 1,
            percent: 75,
            amount: 92.59,
          },
        ],
        rebateAmount: 1203.64,
      },
    });
    const items = charge.items as Item[];
    expect(items).toEqual([
      {
        particulars: 'Days on the rolls: 31 × ₹123.45 = ₹3,826.95',
        quantity: 31,
        unitPrice: 123.45,
        amount: 3826.95,
      },
      {
        particulars:
          'Rebate: leave 2026-03-02 Breakfast to 2026-03-10 Dinner, 9 days × ₹123.45 × 100 % = -₹1,111.05',
        quantity: 9,
        unitPrice: null,
        amount: -1111.05,
      },
      {
        particulars:
          "Rebate: leave 2026-03-15 Breakfast to 2026-03-18 Dinner (4 leave days, 1 under the term's cap), " +
          '1 day × ₹123.45 × 75 % = -₹92.59 (rounded to the paisa)',
        quantity: 1,
        unitPrice: null,
        amount: -92.59,
      },
    ]);
    expect(items.reduce((s, i) => s + paise(i.amount), 0)).toBe(paise(charge.amount));
    // A leave below every band is printed with why it rebates nothing (and is no rebate of the breakdown).
    const asha = (
      await t.get(`/accounts/${m.Asha.id}/statement?from=2026-03&to=2026-03`, { token: treasurer.token })
    ).body.entries[0];
    expect(asha.breakdown.daily.rebates).toEqual([]);
    expect(asha.items.slice(1)).toEqual([
      {
        particulars:
          'Leave 2026-03-03 Breakfast to 2026-03-04 Dinner, 2 days: below the first band, no rebate',
        quantity: 0,
        unitPrice: null,
        amount: 0,
      },
    ]);

    const csv = await t.get(url, { token: treasurer.token, headers: { accept: 'text/csv' } });
    expect(csv.status).toBe(200);
    const itemRows = parseCsv(csv.body.slice(1)).filter((r) => r[2] === 'charge_item');
    expect(itemRows.map((r) => [r[3], r[10]])).toEqual(
      items.map((i) => [i.particulars, i.amount.toFixed(2)]),
    );

    const pdf = await t.app.inject({
      method: 'GET',
      url: `/api${url}`,
      headers: { authorization: `Bearer ${treasurer.token}`, accept: 'application/pdf' },
    });
    expect(pdf.statusCode).toBe(200);
    if (hasPdfToText) {
      const dir = mkdtempSync(join(tmpdir(), 'daily-statement-'));
      try {
        writeFileSync(join(dir, 's.pdf'), pdf.rawPayload);
        const text = execFileSync('pdftotext', ['-layout', join(dir, 's.pdf'), '-'], { encoding: 'utf8' })
          .replace(/\s+/g, ' ')
          .trim();
        expect(text).toContain('Mess bill 2026-03 ₹2,623.31');
        let at = text.indexOf('Mess bill 2026-03');
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
    } else {
      console.warn('pdftotext (poppler-utils) is not installed: the PDF text is not read back');
    }

    // Every member on the rolls is charged their total; Σ charges = the bill's total billed.
    const charged: number[] = [];
    for (const name of Object.keys(m)) {
      const statement = await t.get(`/accounts/${m[name].id}/statement?from=2026-03&to=2026-03`, {
        token: treasurer.token,
      });
      const entry = statement.body.entries.find((e: { kind: string }) => e.kind === 'charge');
      charged.push(entry ? paise(entry.amount) : 0);
    }
    expect(charged.reduce((s, c) => s + c, 0)).toBe(2495541);

    // The close froze the bill: a leave decided now changes nothing of March.
    const frozen = await t.get('/analytics/shares?month=2026-03', { token: treasurer.token });
    expect(frozen.body).toMatchObject({ closed: true, allocated: 24955.41, surplus: 4955.41 });

    // Reopen: the charges are reversed, the balance is back to nothing.
    const reopened = await t.post('/analytics/months/2026-03/reopen', undefined, { token: admin });
    expect(reopened.status).toBe(200);
    const after = await t.get(url, { token: treasurer.token });
    expect(after.body.entries.map((e: { kind: string; amount: number }) => [e.kind, e.amount])).toEqual([
      ['charge', 2623.31],
      ['reversal', 2623.31],
    ]);
    expect(after.body.closing).toBe(0);
  });

  it('leaves a mess that never set the fields billing as before', async () => {
    // The annexe charges by the day; a third mess set up without the fields bills by meals, as always.
    const third = await t.post('/messes', messSetup({ messName: 'Third', slug: 'third' }), { token: admin });
    expect(third.status).toBe(201);
    const config = await t.get('/auth/admin/config?mess=third', { token: admin });
    expect(config.body.config.chargeMethod).toBe('proportional');
    const bill = await t.get('/analytics/shares?month=2026-03&mess=third', { token: admin });
    expect(bill.status).toBe(200);
    expect(bill.body).not.toHaveProperty('surplus');
    expect(bill.body.method).toBe('proportional');
    const daily = await t.get('/analytics/shares?month=2026-03&mess=third&method=daily', { token: admin });
    expect(daily.status).toBe(400);
    expect(daily.body.details.map((d: { field: string }) => d.field)).toEqual(['method']);
  });

  it("answers the university's view for a mix of methods: expenses per meal, and what members owe", async () => {
    // March closed again (by the day), so the main mess's members owe their daily charges.
    expect(
      (await t.post('/analytics/months/2026-03/close', undefined, { token: treasurer.token })).status,
    ).toBe(200);
    const view = await t.get('/analytics/messes?month=2026-03', { token: admin });
    expect(view.status).toBe(200);
    const rows = Object.fromEntries(
      view.body.messes.map((r: { mess: { slug: string } }) => [r.mess.slug, r]),
    );
    expect(rows.main).toMatchObject({ totalExpenses: 20000, mealsServed: 0, costPerMeal: 0, due: 24955.41 });
    expect(rows.annexe).toMatchObject({ totalExpenses: 0, due: 0 });
    expect(rows.third).toMatchObject({ totalExpenses: 0, due: 0 });
    expect(view.body.totals).toMatchObject({ totalExpenses: 20000, due: 24955.41 });
  });

  it('prints why a leave that began before the member joined counts fewer days', async () => {
    // Indu is on no rolls (approved and off dining the same day) when her leave of 7–14 April is recorded, and
    // joins the rolls on 10 April: the leave's 8 days choose its band (100 %), its 5 days on the rolls are rebated.
    m.Indu = await t.member('student', { fullName: 'Indu' });
    expect((await t.put(`/users/${m.Indu.id}/dines`, { dines: false }, { token: admin })).status).toBe(200);
    await leave('Indu', { startDate: '2026-04-07', endDate: '2026-04-14' });
    fixClock(t, ist('2026-04-10', '10:00'));
    expect((await t.put(`/users/${m.Indu.id}/dines`, { dines: true }, { token: admin })).status).toBe(200);
    fixClock(t, ist('2026-05-01', '10:00'));
    expect(
      (await t.post('/analytics/months/2026-04/close', undefined, { token: treasurer.token })).status,
    ).toBe(200);
    const url = `/accounts/${m.Indu.id}/statement?from=2026-04&to=2026-04`;
    const [charge] = (await t.get(url, { token: treasurer.token })).body.entries;
    const rebate = {
      particulars:
        'Rebate: leave 2026-04-07 Breakfast to 2026-04-14 Dinner (8 leave days, 3 before joining the mess count ' +
        'nothing), 5 days × ₹123.45 × 100 % = -₹617.25',
      quantity: 5,
      unitPrice: null,
      amount: -617.25,
    };
    expect(charge.items).toEqual([
      {
        particulars: 'Days on the rolls: 21 × ₹123.45 = ₹2,592.45',
        quantity: 21,
        unitPrice: 123.45,
        amount: 2592.45,
      },
      rebate,
    ]);
    expect(charge.amount).toBe(1975.2);
    const csv = await t.get(url, { token: treasurer.token, headers: { accept: 'text/csv' } });
    const itemRows = parseCsv(csv.body.slice(1)).filter((r) => r[2] === 'charge_item');
    expect(itemRows.map((r) => r[3])).toEqual([charge.items[0].particulars, rebate.particulars]);
  });

  it('answers anew at once when the rate or the bands change (JSON and CSV)', async () => {
    const bill = () => t.get('/analytics/shares?month=2026-03', { token: annexeTreasurer.token });
    const csv = async () =>
      parseCsv(
        (await t.get('/analytics/shares.csv?month=2026-03', { token: annexeTreasurer.token })).body.slice(1),
      );
    expect((await bill()).body.shares[0].share).toBe(2200);
    expect((await csv())[1][9]).toBe('2200.00');
    const annexe = await t.patch('/auth/admin/config?mess=annexe', { dailyRate: 110 }, { token: admin });
    expect(annexe.status).toBe(200);
    expect((await bill()).body).toMatchObject({ dailyRate: 110, allocated: 2420 });
    expect((await csv())[1][9]).toBe('2420.00');
  });
});
