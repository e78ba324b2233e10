import { PaymentReceiptsListener } from '../../src/modules/notifications/payment-receipts.listener';
import { accountsSuite, type Member, paise, sumOf } from '../support/accounts';
import { messSetup, TestApp } from '../support/app';

/** The charge method, and a month closed, reopened and closed again: the charges, payments, adjustments and reversals. */
describe('Member accounts: closing a month', () => {
  const suite = accountsSuite();
  const { spend, present, account, pay } = suite;
  let t: TestApp;
  let admin: string;
  let treasurer: Member;
  let a: Member;
  let b: Member;
  let c: Member;
  beforeAll(() => {
    ({ t, admin, treasurer, a, b, c } = suite);
  });

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
      { field: 'chargeMethod', message: 'chargeMethod must be one of spec, proportional, daily' },
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
      closed.body.shares.map((s: { userId: { _id: string }; share: number }) => [s.userId._id, s.share]),
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
      closed.body.shares.map((s: { userId: { _id: string }; share: number }) => [s.userId._id, s.share]),
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
});
