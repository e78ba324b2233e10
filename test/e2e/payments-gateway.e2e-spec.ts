import { sql } from 'drizzle-orm';
import { addDays, localParts } from '../../src/common/time/dates';
import { Database } from '../../src/database/database';
import { GatewayEventsProcessor } from '../../src/modules/accounts/gateway-events.processor';
import { GatewayEventsRepository } from '../../src/modules/accounts/gateway-events.repository';
import { PaymentReceiptsListener } from '../../src/modules/notifications/payment-receipts.listener';
import { messSetup, TestApp } from '../support/app';
import { PaymentGateway } from '../support/payment-gateway';

type Member = Awaited<ReturnType<TestApp['member']>>;

const today = () => localParts(new Date(), 'Asia/Kolkata').date;

/** The payment gateway (extension 2.2): orders against a real local gateway server, signed webhooks recorded once. */
describe('Paying the mess: the payment gateway', () => {
  const gateway = new PaymentGateway();
  let t: TestApp;
  let admin: string;
  let treasurer: Member;
  let asha: Member;
  let ravi: Member;
  let girl: Member;

  const payments = async (): Promise<number> => {
    // Every mess's payments: the count is read as the tables' owner.
    const result = await t.app
      .get(Database)
      .acrossMesses((tx) =>
        tx.execute(sql`select count(*)::int as n from account_entries where kind = 'payment'`),
      );
    const rows = (result as { rows?: { n: number }[] }).rows ?? (result as unknown as { n: number }[]);
    return Number(rows[0].n);
  };
  const order = async (m: Member, body: Record<string, unknown> = {}) => {
    const res = await t.post('/accounts/me/gateway-orders', body, { token: m.token });
    expect(res.status).toBe(201);
    return res.body.order as { _id: string; gatewayOrderId: string; amount: number };
  };
  // The webhook answers once the event is kept; its payment is recorded a moment later.
  const settled = () => t.app.get(GatewayEventsProcessor).idle();
  const inboxRow = (paymentId: string) => t.app.get(GatewayEventsRepository).find(paymentId);
  const balanceOf = async (m: Member) => (await t.get('/accounts/me', { token: m.token })).body.balance;

  beforeAll(async () => {
    await gateway.start();
    t = await TestApp.start({ ...gateway.env(), MESS_TIMEZONE: 'Asia/Kolkata' });
    admin = await t.adminToken();
    expect((await t.post('/auth/admin/setup', messSetup(), { token: admin })).status).toBe(200);
    const girls = await t.post('/messes', messSetup({ messName: 'Girls Mess', slug: 'girls' }), {
      token: admin,
    });
    expect(girls.status).toBe(201);
    treasurer = await t.member('treasurer');
    asha = await t.member('student', { fullName: 'Asha Verma' });
    ravi = await t.member('student', { fullName: 'Ravi Kumar' });
    const girlsTreasurer = await t.member('treasurer', { messId: girls.body.mess._id });
    girl = await t.member('student', { fullName: 'Lata Rao', messId: girls.body.mess._id });
    for (const [m, by] of [
      [asha, treasurer],
      [ravi, treasurer],
      [girl, girlsTreasurer],
    ] as const) {
      const charged = await t.post(
        `/accounts/${m.id}/adjustments`,
        { direction: 'debit', amount: 1500, note: 'November mess bill' },
        { token: by.token },
      );
      expect(charged.status).toBe(201);
    }
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await gateway.stop();
  });

  it('creates an order at the gateway for what is due, bound to the member; its payment.captured five times at once records one payment', async () => {
    const created = await order(asha);
    expect(created).toMatchObject({ amount: 1500, currency: 'INR', keyId: gateway.keyId, status: 'created' });
    const atGateway = gateway.orders.find((o) => o.id === created.gatewayOrderId);
    expect(atGateway).toMatchObject({ amount: 150_000, currency: 'INR', notes: { userId: asha.id } });

    const before = await payments();
    const { paymentId, body } = gateway.captured(created.gatewayOrderId, { amount: 150_000, method: 'upi' });
    const answers = await Promise.all(Array.from({ length: 5 }, () => gateway.deliver(t, body)));
    expect(answers.map((a) => [a.status, a.body])).toEqual(Array(5).fill([200, { success: true }]));
    await settled();
    expect(await payments()).toBe(before + 1);
    expect(await inboxRow(paymentId)).toMatchObject({ outcome: 'recorded', orderId: created.gatewayOrderId });
    expect(await balanceOf(asha)).toBe(0);
    const [entry] = (await t.get('/accounts/me', { token: asha.token })).body.entries;
    expect(entry).toMatchObject({
      kind: 'payment',
      amount: 1500,
      method: 'upi',
      reference: paymentId,
      date: today(),
    });
    const audit = await t.get(`/audit?entity=account&entityId=${asha.id}`, { token: admin });
    expect(audit.body.events[0]).toMatchObject({
      action: 'payment-recorded',
      after: { source: 'gateway', gatewayPaymentId: paymentId },
    });
    // later, again: still one
    expect((await gateway.deliver(t, body)).status).toBe(200);
    await settled();
    expect(await payments()).toBe(before + 1);
  });

  it('a bad signature is 400 and records nothing; an order not ours is 200 and records nothing', async () => {
    const created = await order(ravi, { amount: 500 });
    const before = await payments();
    const { body, paymentId } = gateway.captured(created.gatewayOrderId, { amount: 50_000 });
    const forged = await gateway.deliver(t, body, gateway.sign(body, 'not-the-secret'));
    expect(forged.status).toBe(400);
    expect(forged.body).toEqual({ success: false, error: 'Invalid webhook signature' });
    expect((await gateway.deliver(t, body, 'abc')).status).toBe(400);
    // the signature of another body
    const tampered = body.replace('50000', '5000000');
    expect((await gateway.deliver(t, tampered, gateway.sign(body))).status).toBe(400);
    const unknown = gateway.captured('order_notours000001', { amount: 50_000 });
    expect(await gateway.deliver(t, unknown.body)).toMatchObject({ status: 200, body: { success: true } });
    await settled();
    expect(await payments()).toBe(before);
    expect(await balanceOf(ravi)).toBe(1500);
    // the forged ones were not even kept; the one not ours was, and says so
    expect(await inboxRow(paymentId)).toBeUndefined();
    expect(await inboxRow(unknown.paymentId)).toMatchObject({ outcome: 'not-ours', messId: null, entryId: null });
  });

  it("records in the order's mess, whatever mess the webhook arrives in", async () => {
    const created = await order(girl);
    const { body } = gateway.captured(created.gatewayOrderId, { amount: 150_000, method: 'netbanking' });
    expect((await gateway.deliver(t, body)).status).toBe(200);
    await settled();
    expect(await balanceOf(girl)).toBe(0);
    const [entry] = (await t.get('/accounts/me', { token: girl.token })).body.entries;
    expect(entry).toMatchObject({ method: 'bank', amount: 1500 });
    // the receipt too, in her mess
    await t.app.get(PaymentReceiptsListener).idle();
    const inbox = (await t.get('/notifications', { token: girl.token })).body.notifications;
    expect(inbox.map((n: { type: string }) => n.type)).toContain('PAYMENT_RECEIVED');
  });

  it('a webhook after the statement recorded its UPI reference records nothing', async () => {
    const utr = '300000000001';
    const claimed = await t.post(
      '/accounts/me/payment-claims',
      { amount: 500, date: addDays(today(), -1), utr },
      { token: ravi.token },
    );
    expect(claimed.status).toBe(201);
    const imported = await t.request('POST', '/accounts/bank-statement', {
      token: treasurer.token,
      body: `date,amount,utr\n${addDays(today(), -1)},500,${utr}\n`,
      headers: { 'content-type': 'text/csv' },
    });
    expect(imported.body).toMatchObject({ matched: 1 });
    const before = await payments();
    const created = await order(ravi, { amount: 500 });
    const { body, paymentId } = gateway.captured(created.gatewayOrderId, { amount: 50_000, rrn: utr });
    expect((await gateway.deliver(t, body)).status).toBe(200);
    await settled();
    expect(await payments()).toBe(before);
    expect(await balanceOf(ravi)).toBe(1000);
    expect(await inboxRow(paymentId)).toMatchObject({ outcome: 'already-recorded', entryId: null });
  });

  it('an event kept but not recorded (its replica stopped in between) is recorded by the sweep, once', async () => {
    const created = await order(asha, { amount: 250 });
    const { body, paymentId } = gateway.captured(created.gatewayOrderId, { amount: 25_000, method: 'card' });
    const before = await balanceOf(asha);
    // What a replica that stopped right after answering 200 leaves: the event kept, claimed, its lease run out.
    await t.app.get(Database).db.execute(sql`
      insert into gateway_events (payment_id, order_id, amount_paise, method, payload, claimed_until)
      values (${paymentId}, ${created.gatewayOrderId}, 25000, 'card', ${body}::jsonb, now() - interval '1 second')`);
    const processor = t.app.get(GatewayEventsProcessor);
    processor.sweep();
    processor.sweep();
    await settled();
    expect(await balanceOf(asha)).toBe(before - 250);
    expect(await inboxRow(paymentId)).toMatchObject({ outcome: 'recorded', processedAt: expect.any(Date) });
    // the gateway's own retry after that: nothing more
    expect((await gateway.deliver(t, body)).status).toBe(200);
    await settled();
    expect(await balanceOf(asha)).toBe(before - 250);
  });

  it('without PAY_* settings an order is 503', async () => {
    const bare = await TestApp.start();
    try {
      const member = await bare.member('student');
      const res = await bare.post('/accounts/me/gateway-orders', { amount: 100 }, { token: member.token });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ success: false, error: 'Online payments are not configured' });
      expect(gateway.refused).toBe(0);
    } finally {
      await bare.close();
    }
  }, 120_000);
});
