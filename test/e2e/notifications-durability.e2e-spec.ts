import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIRST_MESS_ID, inMess } from '../../src/common/tenancy/mess-scope';
import { DeliveryErrors } from '../../src/modules/notifications/channels/delivery-error';
import { NotificationsService } from '../../src/modules/notifications/notifications.service';
import { TestApp } from '../support/app';
import { freshDatabase, TestDatabase } from '../support/database';
import { captureLogs } from '../support/logs';
import { MailServer } from '../support/mail-server';
import { MessagingProvider } from '../support/messaging-provider';
import { notificationsOf } from '../support/notifications';

/** Polls `check` until it returns a value (the worker runs on its own clock), failing after `timeoutMs`. */
async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The queue is durable: a notification queued by one instance is delivered by the next after a stop, and the
 * worker, left to itself, retries an SMTP outage with backoff until the mail server is back. Both run on a
 * database that outlives the instances (a PGlite folder, or a PostgreSQL database).
 */
describe('Durable notification delivery', () => {
  const mail = new MailServer();
  const provider = new MessagingProvider();
  let database: TestDatabase;
  let dataDir: string;
  let logs: ReturnType<typeof captureLogs>;

  beforeAll(async () => {
    logs = captureLogs();
    await mail.start();
    await provider.start();
    database = await freshDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'mess-notifications-'));
  });
  afterAll(async () => {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
    await mail.stop();
    await provider.stop();
    logs.restore();
  });

  it('delivers after a restart what was queued before it, and retries an SMTP outage by itself', async () => {
    // ---- first instance: no messaging settings, no worker ----
    const first = await TestApp.start({ DATA_DIR: dataDir, ...mail.env() }, database);
    const disabled = logs.lines.filter((l) => /WhatsApp notifications are disabled/.test(l.message));
    expect(disabled).toHaveLength(1);
    expect(disabled[0].message).toContain(
      'the messaging provider is not configured (MSG_ACCOUNT_SID, MSG_AUTH_TOKEN, MSG_PHONE_NUMBER not set)',
    );

    const asha = await first.member('student', { phone: '9123400001' });
    const ravi = await first.member('student', { phone: '9123400002' });
    const check = await first.get('/notifications/config/check', { token: asha.token });
    expect(check.body.config).toMatchObject({ messaging: { configured: false }, whatsappSupported: false });

    // `both` with messaging disabled: the contract's text, then email
    await first.post(
      '/notifications/preferences/channel',
      { preferredNotificationChannel: 'both' },
      { token: asha.token },
    );
    const service = first.app.get(NotificationsService);
    // The service, called outside a request, acts in the mess it is given: the first, whose members these are.
    const [fallback] = await inMess(FIRST_MESS_ID, () =>
      service.notify([
        { userId: asha.id, type: 'PAYMENT_DUE', title: 'Payment due', content: 'Your share is ₹1,234.50.' },
      ]),
    );
    await notificationsOf(first).settle();
    const [stored] = (await first.get('/notifications', { token: asha.token })).body.notifications;
    expect(stored).toMatchObject({
      _id: fallback.id,
      status: 'sent',
      fallbackUsed: true,
      deliveredVia: 'email',
      lastError: DeliveryErrors.messagingNotConfigured,
    });
    expect(logs.lines.filter((l) => l.text.includes(fallback.id)).map((l) => l.message)).toEqual([
      'WhatsApp send failed',
      'Falling back to email',
      'Fallback email sent',
    ]);

    // queued, and the process goes away before any worker runs it
    const [waiting] = await inMess(FIRST_MESS_ID, () =>
      service.notify([{ userId: ravi.id, type: 'COST_SUMMARY', title: 'Your bill', content: 'Thirty meals.' }]),
    );
    expect(await notificationsOf(first).queue.statusCounts()).toMatchObject({ queued: 1 });
    await first.app.close();
    const before = mail.received.length;

    // ---- second instance on the same database, with its worker polling ----
    const second = await TestApp.start(
      {
        DATA_DIR: dataDir,
        ...mail.env(),
        ...provider.env(),
        NOTIFY_WORKER_ENABLED: 'true',
        NOTIFY_WORKER_POLL_SECONDS: '1',
        NOTIFY_RETRY_DELAY_SECONDS: '1',
        MSG_TEST_PHONE: '+919999900000',
      },
      database,
    );
    await mail.waitFor(before + 1);
    const delivered = await eventually(async () => {
      const [row] = (await second.get('/notifications', { token: ravi.token })).body.notifications;
      return row?.status === 'sent' ? row : undefined;
    });
    expect(delivered).toMatchObject({ _id: waiting.id, attempts: 1, deliveredVia: 'email' });
    expect(mail.to(ravi.email)).toHaveLength(1);

    // in the sandbox the test message goes to MSG_TEST_PHONE rather than the caller's phone
    const sandbox = await second.get('/notifications/config/check', { token: ravi.token });
    expect(sandbox.body.config.messaging).toMatchObject({ configured: true, testPhoneConfigured: true });
    const test = await second.post('/notifications/test', { channel: 'whatsapp' }, { token: ravi.token });
    expect(test.body).toMatchObject({ success: true, details: { whatsapp: 'sent' } });
    expect(provider.sentTo('+919999900000')).toHaveLength(1);
    expect(provider.sentTo('+919123400002')).toHaveLength(0);

    // ---- the worker meets an SMTP outage, backs off, and delivers once the server is back ----
    await mail.stop();
    const [outage] = await inMess(FIRST_MESS_ID, () =>
      second.app
        .get(NotificationsService)
        .notify([{ userId: ravi.id, type: 'MEAL_UPDATE', title: 'Menu changed', content: 'Paneer tonight.' }]),
    );
    await eventually(async () => {
      const row = (
        (await second.get('/notifications', { token: ravi.token })).body.notifications as any[]
      ).find((x) => x._id === outage.id);
      return row?.status === 'retrying' ? row : undefined;
    });
    await mail.start();
    await mail.waitFor(before + 2);
    const recovered = await eventually(async () => {
      const row = (
        (await second.get('/notifications', { token: ravi.token })).body.notifications as any[]
      ).find((x) => x._id === outage.id);
      return row?.status === 'sent' ? row : undefined;
    });
    expect(recovered.attempts).toBeGreaterThanOrEqual(2);
    expect(mail.to(ravi.email).map((m) => m.subject)).toEqual([
      'Hostel Mess: Your bill',
      'Hostel Mess: Menu changed',
    ]);
    const summary = await second.get('/admin/health-summary', { token: await second.adminToken() });
    expect(summary.body.jobQueue).toEqual({ pending: 0, failed: 0, processed: 3 });

    // both instances started and stopped the queue cleanly on the shared connection
    await second.app.close();
    expect(logs.lines.filter((l) => l.level === 'error')).toEqual([]);
  }, 240_000); // three starts on a data directory on disk: minutes on a busy machine
});
