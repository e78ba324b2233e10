import { Resvg } from '@resvg/resvg-js';
import jsQR from 'jsqr';
import { sql } from 'drizzle-orm';
import { localParts } from '../../src/common/time/dates';
import { FIRST_MESS_ID, inMess } from '../../src/common/tenancy/mess-scope';
import { Database } from '../../src/database/database';
import { PaymentReceiptsListener } from '../../src/modules/notifications/payment-receipts.listener';
import { messSetup, TestApp } from '../support/app';
import { MailServer } from '../support/mail-server';
import { notificationsOf } from '../support/notifications';

type Member = Awaited<ReturnType<TestApp['member']>>;

/** Rasterises the SVG and reads it back with a QR decoder, as a phone's UPI app would. */
function decodeQr(svg: string): string | undefined {
  const image = new Resvg(svg, { fitTo: { mode: 'width', value: 400 }, background: 'white' }).render();
  return jsQR(new Uint8ClampedArray(image.pixels), image.width, image.height)?.data;
}

const today = () => localParts(new Date(), 'Asia/Kolkata').date;
const fields = (body: { details?: { field: string }[] }) => (body.details ?? []).map((d) => d.field);

/** Paying the mess by UPI (extension 2.2): the link and QR, claims, the treasurer's decisions. */
describe('Paying the mess: UPI link, claims, accept and reject', () => {
  const mail = new MailServer();
  let t: TestApp;
  let admin: string;
  let treasurer: Member;
  let asha: Member;
  let ravi: Member;

  const count = async (table: string): Promise<number> => {
    // The members are in the first mess: the table read directly shows that mess's rows.
    const result = await inMess(FIRST_MESS_ID, () =>
      t.app.get(Database).db.execute(sql.raw(`select count(*)::int as n from ${table}`)),
    );
    const rows = (result as { rows?: { n: number }[] }).rows ?? (result as unknown as { n: number }[]);
    return Number(rows[0].n);
  };
  const balanceOf = async (m: Member) => (await t.get('/accounts/me', { token: m.token })).body.balance;
  const claim = (m: Member, body: Record<string, unknown>) =>
    t.post('/accounts/me/payment-claims', body, { token: m.token });

  beforeAll(async () => {
    await mail.start();
    t = await TestApp.start({ ...mail.env(), MESS_TIMEZONE: 'Asia/Kolkata' });
    admin = await t.adminToken();
    expect((await t.post('/auth/admin/setup', messSetup(), { token: admin })).status).toBe(200);
    treasurer = await t.member('treasurer');
    asha = await t.member('student', { fullName: 'Asha Verma' });
    ravi = await t.member('student', { fullName: 'Ravi Kumar' });
    for (const [m, amount] of [
      [asha, 3250.5],
      [ravi, 1200],
    ] as const) {
      const charged = await t.post(
        `/accounts/${m.id}/adjustments`,
        { direction: 'debit', amount, note: 'November mess bill' },
        { token: treasurer.token },
      );
      expect(charged.status).toBe(201);
    }
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await mail.stop();
  });

  it('answers 409 until the mess has a UPI id, then a link and a QR code that decodes back to it', async () => {
    const before = await t.get('/accounts/me/upi', { token: asha.token });
    expect(before.status).toBe(409);
    expect(before.body).toEqual({ success: false, error: 'UPI payments are not set up for this mess' });

    const set = await t.patch(
      '/auth/admin/config',
      { upi: { vpa: 'hostel7.mess@okbank', payeeName: 'Hostel 7 Mess' } },
      { token: admin },
    );
    expect(set.status).toBe(200);

    const res = await t.get('/accounts/me/upi', { token: asha.token });
    expect(res.status).toBe(200);
    expect(res.body.amount).toBe(3250.5);
    expect(res.body.upiLink).toBe(
      'upi://pay?pa=hostel7.mess%40okbank&pn=Hostel%207%20Mess&am=3250.50&cu=INR' +
        '&tn=Hostel%207%20Mess%20-%20Asha%20Verma',
    );
    expect(res.body.qrSvg).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(decodeQr(res.body.qrSvg)).toBe(res.body.upiLink);

    // an amount of one's choosing; a member with nothing due and no amount gets 409
    const chosen = await t.get('/accounts/me/upi?amount=500', { token: asha.token });
    expect(chosen.body.upiLink).toContain('&am=500.00&');
    const nothingDue = await t.get('/accounts/me/upi', { token: treasurer.token });
    expect(nothingDue.status).toBe(409);
    expect(nothingDue.body.error).toBe('Nothing is due on your account; name an amount to pay in advance');
    const bad = await t.get('/accounts/me/upi?amount=-3', { token: asha.token });
    expect(bad.status).toBe(400);
    expect(fields(bad.body)).toContain('amount');
  });

  it('refuses a bad claim with a 400 naming the field, and records nothing', async () => {
    const good = { amount: 3250.5, date: today(), utr: '412233445566' };
    for (const [body, field] of [
      [{ ...good, utr: '41223344556' }, 'utr'],
      [{ ...good, utr: '4122334455667' }, 'utr'],
      [{ ...good, utr: 'UTR412233445' }, 'utr'],
      [{ ...good, date: '2999-01-01' }, 'date'],
      [{ ...good, date: '2025-02-30' }, 'date'],
      [{ ...good, amount: 0 }, 'amount'],
      [{ ...good, amount: 1.005 }, 'amount'],
    ] as const) {
      const res = await claim(asha, body);
      expect(res.status).toBe(400);
      expect(fields(res.body)).toContain(field);
    }
    expect(await count('payment_claims')).toBe(0);
  });

  it('a member claims, the treasurer accepts: the balance moves by the amount exactly and a receipt is mailed', async () => {
    const before = await balanceOf(asha);
    const created = await claim(asha, {
      amount: 3250.5,
      date: today(),
      utr: '412233445566',
      note: 'November',
    });
    expect(created.status).toBe(201);
    expect(created.body.claim).toMatchObject({
      userId: { _id: asha.id, fullName: 'Asha Verma' },
      amount: 3250.5,
      date: today(),
      utr: '412233445566',
      note: 'November',
      status: 'pending',
      entryId: null,
    });
    // the same UTR again, by anyone: 409 naming utr
    const again = await claim(ravi, { amount: 10, date: today(), utr: '412233445566' });
    expect(again.status).toBe(409);
    expect(fields(again.body)).toEqual(['utr']);

    // the list: the treasurer sees every claim, a member their own
    const list = await t.get('/accounts/payment-claims?status=pending', { token: treasurer.token });
    expect(list.body.claims.map((c: { _id: string }) => c._id)).toEqual([created.body.claim._id]);
    expect((await t.get('/accounts/payment-claims', { token: ravi.token })).body.claims).toEqual([]);
    // a member cannot decide
    const id = created.body.claim._id as string;
    expect(
      (await t.put(`/accounts/payment-claims/${id}/accept`, undefined, { token: ravi.token })).status,
    ).toBe(403);

    const mails = mail.received.length;
    const accepted = await t.put(`/accounts/payment-claims/${id}/accept`, undefined, {
      token: treasurer.token,
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.claim).toMatchObject({ status: 'accepted', decidedBy: treasurer.id });
    expect(accepted.body.entry).toMatchObject({
      kind: 'payment',
      direction: 'credit',
      amount: 3250.5,
      method: 'upi',
      reference: '412233445566',
      date: today(),
    });
    expect(accepted.body.claim.entryId).toBe(accepted.body.entry._id);
    expect(accepted.body.balance).toBe(before - 3250.5);
    expect(await balanceOf(asha)).toBe(before - 3250.5);

    // the receipt, by email through the real SMTP server
    await t.app.get(PaymentReceiptsListener).idle();
    await notificationsOf(t).queue.drain();
    await mail.waitFor(mails + 1);
    const receipt = mail.received.slice(mails).find((m) => m.to.includes(asha.email));
    expect(receipt?.subject).toContain('Payment received: ₹3,250.50');

    // the audit row names the claim
    const audit = await t.get(`/audit?entity=account&entityId=${asha.id}`, { token: admin });
    const recorded = audit.body.events.find((e: { action: string }) => e.action === 'payment-recorded');
    expect(recorded.after).toMatchObject({ source: 'claim', claimId: id, entryId: accepted.body.entry._id });

    // accepting again answers the same entry and records nothing; rejecting it now is 409
    const payments = await count("account_entries where kind = 'payment'");
    const repeat = await t.put(`/accounts/payment-claims/${id}/accept`, undefined, {
      token: treasurer.token,
    });
    expect(repeat.status).toBe(200);
    expect(repeat.body.entry._id).toBe(accepted.body.entry._id);
    expect(await count("account_entries where kind = 'payment'")).toBe(payments);
    const reject = await t.put(
      `/accounts/payment-claims/${id}/reject`,
      { reason: 'late' },
      { token: treasurer.token },
    );
    expect(reject.status).toBe(409);
    expect(reject.body.error).toBe('An accepted claim cannot be rejected; reverse its payment instead');
    // a UTR already recorded as a payment's reference cannot be claimed
    expect((await claim(ravi, { amount: 5, date: today(), utr: '412233445566' })).status).toBe(409);
  });

  it('a claim whose UTR the treasurer recorded by hand meanwhile is accepted as that payment', async () => {
    const created = await claim(ravi, { amount: 100, date: today(), utr: '712233445566' });
    const byHand = await t.post(
      `/accounts/${ravi.id}/payments`,
      { amount: 100, date: today(), method: 'upi', reference: '712233445566' },
      { token: treasurer.token },
    );
    expect(byHand.status).toBe(201);
    const payments = await count("account_entries where kind = 'payment'");
    const accepted = await t.put(`/accounts/payment-claims/${created.body.claim._id}/accept`, undefined, {
      token: treasurer.token,
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.entry._id).toBe(byHand.body.entry._id);
    expect(await count("account_entries where kind = 'payment'")).toBe(payments);
    // put back what this test paid, for the next one
    await t.post(
      `/accounts/${ravi.id}/adjustments`,
      { direction: 'debit', amount: 100, note: 'test' },
      { token: treasurer.token },
    );
  });

  it('two accepts at once record one payment', async () => {
    const created = await claim(ravi, { amount: 1200, date: today(), utr: '512233445566' });
    expect(created.status).toBe(201);
    const id = created.body.claim._id as string;
    const payments = await count("account_entries where kind = 'payment'");
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        t.put(`/accounts/payment-claims/${id}/accept`, undefined, { token: treasurer.token }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.body.entry._id)).size).toBe(1);
    expect(await count("account_entries where kind = 'payment'")).toBe(payments + 1);
    expect(await balanceOf(ravi)).toBe(0);
  });

  it('rejects with a reason; a rejected claim cannot be accepted', async () => {
    const created = await claim(ravi, { amount: 99, date: today(), utr: '612233445566' });
    const id = created.body.claim._id as string;
    const noReason = await t.put(`/accounts/payment-claims/${id}/reject`, {}, { token: treasurer.token });
    expect(noReason.status).toBe(400);
    expect(fields(noReason.body)).toContain('reason');
    const rejected = await t.put(
      `/accounts/payment-claims/${id}/reject`,
      { reason: 'No such credit in the bank account' },
      { token: treasurer.token },
    );
    expect(rejected.status).toBe(200);
    expect(rejected.body.claim).toMatchObject({
      status: 'rejected',
      reason: 'No such credit in the bank account',
      entryId: null,
    });
    const accept = await t.put(`/accounts/payment-claims/${id}/accept`, undefined, {
      token: treasurer.token,
    });
    expect(accept.status).toBe(409);
    expect(accept.body.error).toBe('A rejected claim cannot be accepted');
    const unknown = await t.put(
      '/accounts/payment-claims/00000000-0000-4000-8000-000000000000/accept',
      undefined,
      {
        token: treasurer.token,
      },
    );
    expect(unknown.status).toBe(404);
    // newest first, filtered by member
    const list = await t.get(`/accounts/payment-claims?userId=${ravi.id}`, { token: treasurer.token });
    expect(list.body.claims.map((c: { utr: string }) => c.utr)).toEqual([
      '612233445566',
      '512233445566',
      '712233445566',
    ]);
    expect(list.body.pagination).toEqual({ page: 1, limit: 20, total: 3 });
  });

  it('a rejected claim frees its UTR: the corrected claim is taken (once) and a statement row matches it', async () => {
    const utr = '812233445566';
    const wrong = await claim(ravi, { amount: 10, date: today(), utr });
    expect(wrong.status).toBe(201);
    const rejected = await t.put(
      `/accounts/payment-claims/${wrong.body.claim._id}/reject`,
      { reason: 'The amount is not what the bank shows' },
      { token: treasurer.token },
    );
    expect(rejected.status).toBe(200);
    // the corrected claims, sent at once: the unique key takes one of them, the others are 409 naming utr
    const corrected = await Promise.all(
      Array.from({ length: 4 }, () => claim(ravi, { amount: 12, date: today(), utr })),
    );
    expect(corrected.map((c) => c.status).sort()).toEqual([201, 409, 409, 409]);
    const taken = corrected.find((c) => c.status === 201)!;
    expect(taken.body.claim).toMatchObject({ utr, amount: 12, status: 'pending' });
    const refused = corrected.find((c) => c.status === 409)!;
    expect(refused.body.error).toBe('This UTR is already claimed or recorded in this mess');
    expect(fields(refused.body)).toEqual(['utr']);
    // the bank statement's row with the UTR accepts the pending claim, not the rejected one
    const statement = await t.request('POST', '/accounts/bank-statement', {
      token: treasurer.token,
      body: `date,utr,amount\n${today()},${utr},12\n`,
      headers: { 'content-type': 'text/csv' },
    });
    expect(statement.status).toBe(200);
    expect(statement.body).toMatchObject({ matched: 1, alreadyRecorded: 0, unmatched: [] });
    const mine = await t.get(`/accounts/payment-claims?userId=${ravi.id}`, { token: treasurer.token });
    expect(
      mine.body.claims
        .filter((c: { utr: string }) => c.utr === utr)
        .map((c: { _id: string; status: string }) => [c._id, c.status]),
    ).toEqual([
      [taken.body.claim._id, 'accepted'],
      [wrong.body.claim._id, 'rejected'],
    ]);
    // an accepted claim (a recorded payment) blocks the UTR again
    expect((await claim(ravi, { amount: 12, date: today(), utr })).status).toBe(409);
    await t.post(
      `/accounts/${ravi.id}/adjustments`,
      { direction: 'debit', amount: 12, note: 'test' },
      { token: treasurer.token },
    );
  });
});
