import { sql } from 'drizzle-orm';
import { Database } from '../../src/database/database';
import { DeliveryErrors } from '../../src/modules/notifications/channels/delivery-error';
import { ADMIN, TestApp } from '../support/app';
import { ProviderErrors, TEST_ACCOUNT_SID, TEST_AUTH_TOKEN } from '../support/messaging-provider';
import { fixClock, notificationsOf, restoreClock, tickSchedulesAt } from '../support/notifications';
import { bothProvidersSuite, type Logs, SMTP_SECRETS } from '../support/notifications-suite';

/** Retries through an outage, until the deadline, of lost jobs; the history; no secret in the logs. */
describe('Notifications: retries and history', () => {
  const suite = bothProvidersSuite();
  const { mail, provider, memberWith, historyOf, notifyOne } = suite;
  let logs: Logs;
  let t: TestApp;
  let n: ReturnType<typeof notificationsOf>;
  beforeAll(() => {
    ({ logs, t, n } = suite);
  });

  describe('delivery', () => {
    it('keeps a notification through an SMTP outage: retried with backoff, delivered once when the server is back', async () => {
      const admin = await t.adminToken();
      const member = await memberWith('both');
      provider.failFor(member.phone, ProviderErrors.invalidNumber(member.phone));
      await mail.stop();
      const row = await notifyOne(member.id);

      await n.settle();
      let [stored] = await historyOf(member);
      expect(stored).toMatchObject({ _id: row.id, status: 'retrying', attempts: 1 });
      expect(stored.lastError).toBe(DeliveryErrors.mailUnreachable);
      // the job waits for its backoff: nothing is due right away
      expect(await n.queue.drain()).toBe(0);
      const summary = await t.get('/admin/health-summary', { token: admin });
      expect(summary.body.jobQueue.pending).toBeGreaterThanOrEqual(1);
      const jobs = await t.get('/health/jobs');
      expect(jobs.body.info.jobs).toMatchObject({ status: 'up', attached: true });
      expect(jobs.body.info.jobs.pending).toBeGreaterThanOrEqual(1);

      // still down at the second attempt
      await n.queue.makeRetriesDue();
      await n.settle();
      [stored] = await historyOf(member);
      expect(stored).toMatchObject({ status: 'retrying', attempts: 2 });

      await mail.start();
      await n.queue.makeRetriesDue();
      await n.settle();
      [stored] = await historyOf(member);
      expect(stored).toMatchObject({
        status: 'sent',
        attempts: 3,
        fallbackUsed: true,
        deliveredVia: 'email',
        channels: ['whatsapp', 'email'],
        lastError: DeliveryErrors.invalidNumber,
      });
      // nothing left, nothing sent twice: one email, and WhatsApp was tried once in all three attempts
      await n.queue.makeRetriesDue();
      expect(await n.settle()).toBe(0);
      expect(mail.to(member.email)).toHaveLength(1);
      expect(provider.requests.filter((r) => r.to === `whatsapp:${member.phone}`)).toHaveLength(1);

      const after = await t.get('/admin/health-summary', { token: admin });
      expect(after.body.jobQueue.pending).toBe(0);
      expect(after.body.jobQueue.processed).toBeGreaterThanOrEqual(1);
    });

    it('retries an SMTP outage until NOTIFY_RETRY_DEADLINE_HOURS (24) after queueing, not a fixed count, then fails', async () => {
      const member = await memberWith('email');
      await mail.stop();
      try {
        const row = await notifyOne(member.id);
        await n.settle();
        expect((await historyOf(member))[0]).toMatchObject({ status: 'retrying', attempts: 1 });
        // 23 hours on, more retries than NOTIFY_RETRY_LIMIT (5 here): still retrying
        const clock = fixClock(t, new Date(row.createdAt.getTime() + 23 * 3_600_000));
        for (let i = 0; i < 7; i++) {
          await n.queue.makeRetriesDue();
          await n.settle();
        }
        expect((await historyOf(member))[0]).toMatchObject({
          status: 'retrying',
          attempts: 8,
          lastError: DeliveryErrors.mailUnreachable,
        });
        // past the deadline: the next attempt's transient failure is final
        clock.set(new Date(row.createdAt.getTime() + 24 * 3_600_000 + 60_000));
        await n.queue.makeRetriesDue();
        await n.settle();
        expect((await historyOf(member))[0]).toMatchObject({
          status: 'failed',
          attempts: 9,
          lastError: DeliveryErrors.mailUnreachable,
        });
        await n.queue.makeRetriesDue();
        expect(await n.settle()).toBe(0);
      } finally {
        restoreClock(t);
        await mail.start();
      }
    });

    it('gives a notification whose job is gone or failed a new one on the schedule tick, and fails it past the deadline', async () => {
      const database = t.app.get(Database);
      const tickAt = (at: Date) => tickSchedulesAt(t, at);
      const jobsOf = (id: string) =>
        sql`from pgboss.job where name = 'notification-delivery' and data->>'notificationId' = ${id}`;
      const [lost, failedJob, late] = [
        await memberWith('email'),
        await memberWith('email'),
        await memberWith('email'),
      ];
      await mail.stop();
      const rows = [await notifyOne(lost.id), await notifyOne(failedJob.id), await notifyOne(late.id)];
      await n.settle();
      await mail.start();
      // a job deleted by hand, one that pg-boss ended as failed, and a lost one whose deadline has passed
      await database.db.execute(sql`delete ${jobsOf(rows[0].id)}`);
      await database.db.execute(sql`update pgboss.job set state = 'failed' where id = ${rows[1].id}`);
      await database.db.execute(sql`delete ${jobsOf(rows[2].id)}`);
      await n.queue.makeRetriesDue();
      await n.settle();
      for (const m of [lost, failedJob, late]) {
        expect((await historyOf(m))[0]).toMatchObject({ status: 'retrying', attempts: 1 });
      }

      // within NOTIFY_JOB_EXPIRE_SECONDS of its last change a row is left alone. (A tick runs every schedule of its
      // hour: a meal reminder may join a member's history, so each row is found by its id.)
      const rowOf = async (m: { token: string }, id: string) =>
        (await historyOf(m)).find((row: { _id: string }) => row._id === id);
      await tickAt(new Date(Date.now() + 60_000));
      await n.settle();
      expect(await rowOf(lost, rows[0].id)).toMatchObject({ status: 'retrying' });

      // later: new jobs for the first two, delivered once; a second tick adds nothing
      await database.db.execute(
        sql`update notifications set created_at = now() - interval '25 hours' where id = ${rows[2].id}`,
      );
      await tickAt(new Date(Date.now() + 10 * 60_000));
      await tickAt(new Date(Date.now() + 11 * 60_000));
      await n.settle();
      for (const [i, m] of [lost, failedJob].entries()) {
        expect(await rowOf(m, rows[i].id)).toMatchObject({ status: 'sent', attempts: 2 });
        expect(mail.to(m.email).filter((sent) => sent.subject.includes(rows[i].title))).toHaveLength(1);
      }
      expect(await rowOf(late, rows[2].id)).toMatchObject({
        status: 'failed',
        attempts: 1,
        lastError: DeliveryErrors.mailUnreachable,
      });
      expect(mail.to(late.email).filter((sent) => sent.subject.includes(rows[2].title))).toHaveLength(0);
    });

    it('lists only the caller’s own notifications, newest first, paginated', async () => {
      const member = await memberWith('email');
      const other = await memberWith('email');
      await notifyOne(member.id);
      await notifyOne(member.id, 'EXPENSE_ADDED');
      await notifyOne(other.id);
      await n.settle();
      const page = await t.get('/notifications?page=1&limit=1', { token: member.token });
      expect(page.status).toBe(200);
      expect(page.body.pagination).toEqual({ page: 1, limit: 1, total: 2 });
      expect(page.body.notifications).toHaveLength(1);
      expect(page.body.notifications[0].type).toBe('EXPENSE_ADDED');
      const second = await t.get('/notifications?page=2&limit=1', { token: member.token });
      expect(second.body.notifications[0].type).toBe('DISCREPANCY_ALERT');
      expect((await t.get('/notifications?limit=1000', { token: member.token })).status).toBe(400);
    });
  });

  it('never writes a secret or a full phone number to the logs', () => {
    const all = logs.all();
    expect(logs.lines.length).toBeGreaterThan(10);
    for (const secret of [TEST_AUTH_TOKEN, TEST_ACCOUNT_SID, ...SMTP_SECRETS, ADMIN.password]) {
      expect(all).not.toContain(secret);
    }
    expect(all).not.toMatch(/\+91\d{10}/);
  });
});
