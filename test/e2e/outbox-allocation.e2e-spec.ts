import { Client } from 'pg';
import { AppConfig } from '../../src/config/app-config';
import { MessAllocatedListener } from '../../src/modules/notifications/mess-allocated.listener';
import { NotificationQueue } from '../../src/modules/notifications/notification-queue';
import { TermsSchedule } from '../../src/modules/terms/terms.schedule';
import { messSetup, TestApp } from '../support/app';
import { MailServer } from '../support/mail-server';
import { fixClock } from '../support/notifications';

type Member = Awaited<ReturnType<TestApp['member']>>;

/** An instant of the mess's clock (Asia/Kolkata, +05:30). */
const ist = (date: string, time: string) => new Date(`${date}T${time}:00+05:30`);

/** Choosers per mess: three messes, 180 members with a choice. */
const PER_MESS = 60;

/**
 * Issue 45, the transactional outbox: a term window with many choosers closed with its moves at once tells every
 * chooser once (one MESS_ALLOCATED mail each, counted at the SMTP server). The promise is written with the
 * allocation (the outbox), and the notification insert is retried whole when it deadlocks: on the server the test
 * makes it deadlock once, with a real lock held on a second connection, the way a batch move's `FOR UPDATE` met the
 * insert's foreign-key check and lost half the notices before the outbox.
 */
describe('Outbox: a term window closed with many choosers tells each once', () => {
  const mail = new MailServer();
  let t: TestApp;
  let admin: string;
  const messIds: string[] = [];
  const slugs = ['west', 'hill', 'lake'];

  /** A window over the three messes, everyone of `choosers` choosing, closed (and moved) by the scheduler at once. */
  const windowWithChoosers = async (term: string, day: string, choosers: Member[], effectiveFrom = '2030-03-01') => {
    fixClock(t, ist(day, '08:00'));
    const created = await t.post(
      '/mess-windows',
      {
        term,
        opensAt: ist(day, '09:00').toISOString(),
        closesAt: ist(day, '18:00').toISOString(),
        effectiveFrom,
        messes: slugs,
      },
      { token: admin },
    );
    expect(created.status).toBe(201);
    const windowId = created.body.window._id as string;
    fixClock(t, ist(day, '10:00'));
    for (let i = 0; i < choosers.length; i += 20) {
      const saved = await Promise.all(
        choosers.slice(i, i + 20).map((m, j) =>
          t.put(
            `/mess-windows/${windowId}/choice`,
            { preferences: [slugs[(i + j) % 3], slugs[(i + j + 1) % 3]] },
            { token: m.token },
          ),
        ),
      );
      expect(saved.map((r) => r.status)).toEqual(saved.map(() => 200));
    }
    return windowId;
  };

  /** One scheduler tick at the close: the lottery, then the moves (effectiveFrom has come). */
  const closeAt = async (day: string) => {
    fixClock(t, ist(day, '18:00'));
    const config = t.app.get(AppConfig) as { messWindowsScheduleEnabled: boolean };
    config.messWindowsScheduleEnabled = true;
    try {
      await t.app.get(TermsSchedule).tick();
    } finally {
      config.messWindowsScheduleEnabled = false;
    }
  };

  const deliver = async () => {
    await t.app.get(MessAllocatedListener).idle();
    await t.app.get(NotificationQueue).drain();
  };

  /** How many mails each chooser got (a chooser is told nothing but their result). */
  const mailsPerChooser = (choosers: Member[]) => choosers.map((m) => mail.to(m.email).length);

  beforeAll(async () => {
    await mail.start();
    t = await TestApp.start({ ...mail.env() });
    admin = await t.adminToken();
    fixClock(t, ist('2030-03-10', '08:00'));
    expect((await t.post('/auth/admin/setup', messSetup({ messName: 'Central' }), { token: admin })).status).toBe(
      200,
    );
    for (const [i, slug] of slugs.entries()) {
      const made = await t.post(
        '/messes',
        messSetup({ messName: slug[0].toUpperCase() + slug.slice(1), slug, capacity: i === 2 ? undefined : 400 }),
        { token: admin },
      );
      expect(made.status).toBe(201);
      messIds.push(made.body.mess._id as string);
    }
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await mail.stop();
  });

  const choosersIn = async (tag: string) => {
    const choosers: Member[] = [];
    for (const messId of messIds)
      for (let i = 0; i < PER_MESS; i += 1)
        choosers.push(await t.member('student', { messId, fullName: `${tag} ${choosers.length}` }));
    return choosers;
  };

  it('closes a window of 180 choosers with its moves: one MESS_ALLOCATED mail to each, none twice', async () => {
    const choosers = await choosersIn('First');
    await windowWithChoosers('2031 odd semester', '2030-04-10', choosers);
    await closeAt('2030-04-10');
    await deliver();
    expect(mailsPerChooser(choosers)).toEqual(choosers.map(() => 1));
    const window = await t.get('/mess-windows?status=applied', { token: admin });
    expect(window.body.windows).toHaveLength(1);
  }, 300_000);

  (process.env.TEST_DATABASE_URL ? it : it.skip)(
    'the notification insert deadlocks once with a real lock on another connection: retried whole, each told once',
    async () => {
      const choosers = await choosersIn('Second');
      // Moved later (effectiveFrom to come): at the close only the lottery and its notices, so the one cycle is the
      // test's (the moves' own locks are the first test's).
      const windowId = await windowWithChoosers('2031 even semester', '2030-05-10', choosers, '2031-01-01');
      // Two choosers of the first mess: X's row is locked FOR UPDATE by the test (the insert's foreign-key check
      // `FOR KEY SHARE` waits for it), then the test inserts Y's notification with the key the waiting insert
      // already holds: a deadlock. The test's session waits 20 s before looking for one, the service's 1 s: the
      // service's insert is the one PostgreSQL cancels (40P01), and its transaction must be run again.
      const [x, y] = choosers;
      const client = new Client({ connectionString: t.databaseUrl });
      await client.connect();
      try {
        const deadlocksBefore = await deadlocks(client);
        await client.query('begin');
        await client.query(`set local deadlock_timeout = '20s'`);
        await client.query('select 1 from users where id = $1 for update', [x.id]);
        const closing = closeAt('2030-05-10');
        // Wait for the notification insert (of the first mess: X's notice is there) to be blocked on X's row.
        for (const started = Date.now(); ; ) {
          const { rows } = await client.query(
            `select 1 from pg_stat_activity
              where query ilike 'insert into "notifications"%' and pg_backend_pid() = any(pg_blocking_pids(pid))`,
          );
          if (rows.length) break;
          if (Date.now() - started > 60_000) {
            const activity = await client.query(
              `select pid, state, wait_event_type, pg_blocking_pids(pid) as blocked_by, left(query, 100) as query
                 from pg_stat_activity where datname = current_database()`,
            );
            throw new Error(`the notification insert never waited for the lock: ${JSON.stringify(activity.rows)}`);
          }
          await new Promise((r) => setTimeout(r, 50));
        }
        // Y's key is held by the waiting insert: this insert waits for it, and the cycle is closed.
        await client.query(
          `insert into notifications (mess_id, user_id, type, title, content, dedupe_key)
           values ($1, $2, 'MESS_ALLOCATED', 't', 'c', $3) on conflict do nothing`,
          [messIds[0], y.id, `MESS_ALLOCATED:${windowId}:${y.id}`],
        );
        // The service's insert was the one cancelled (ours went through): undo ours, let the retry in.
        await client.query('rollback');
        expect(await deadlocks(client)).toBeGreaterThan(deadlocksBefore);
        await closing;
        await deliver();
        expect(mailsPerChooser(choosers)).toEqual(choosers.map(() => 1));
      } finally {
        await client.end();
      }
    },
    300_000,
  );
});

async function deadlocks(client: Client): Promise<number> {
  const { rows } = await client.query<{ n: string }>(
    'select deadlocks::text as n from pg_stat_database where datname = current_database()',
  );
  return Number(rows[0].n);
}
