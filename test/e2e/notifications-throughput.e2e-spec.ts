import { whileUnavailable } from '../support/unavailable';
import { FIRST_MESS_ID, inMess } from '../../src/common/tenancy/mess-scope';
import { NotificationsService } from '../../src/modules/notifications/notifications.service';
import { TestApp } from '../support/app';
import { MailServer } from '../support/mail-server';

/**
 * The delivery worker, left to itself, works through a fan-out quickly: batches fetched back to back while they come
 * back full, each batch delivered with bounded concurrency over a pooled SMTP transport. Set NOTIFY_THROUGHPUT_COUNT
 * to measure with more messages; the rate is printed.
 */
describe('Notification throughput', () => {
  const count = Number(process.env.NOTIFY_THROUGHPUT_COUNT ?? 200);
  const mail = new MailServer();
  let t: TestApp;

  beforeAll(async () => {
    await mail.start();
    t = await TestApp.start({ ...mail.env(), NOTIFY_WORKER_ENABLED: 'true' });
  });
  afterAll(async () => {
    await t.close();
    await mail.stop();
  });

  // How fast is measured and reported, not asserted: a busy machine makes any time bound flaky (speed is the
  // benchmarks' to judge). What must hold is that every one arrives, once.
  it(`delivers ${count} emails, every one once`, async () => {
    const member = await t.member('student');
    const started = Date.now();
    // One transaction: cut by a switchover (TEST_RETRY_UNAVAILABLE), it wrote nothing and is sent again.
    await whileUnavailable(() =>
      inMess(FIRST_MESS_ID, () =>
        t.app.get(NotificationsService).notify(
        Array.from({ length: count }, (_, i) => ({
          userId: member.id,
          type: 'EXPENSE_ADDED' as const,
          title: `Expense ${i}`,
          content: `Expense number ${i} was recorded.`,
        })),
      ),
      ),
    );
    await mail.waitFor(count);
    const seconds = (Date.now() - started) / 1000;
    process.stdout.write(
      `notification throughput: ${count} emails in ${seconds.toFixed(1)} s (${(count / seconds).toFixed(1)}/s)\n`,
    );
    expect(mail.received).toHaveLength(count);
  }, 300_000);
});
