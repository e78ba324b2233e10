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
  const windowWithChoosers = async (
    term: string,
    day: string,
    choosers: Member[],
    effectiveFrom = '2030-03-01',
  ) => {
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
        choosers
          .slice(i, i + 20)
          .map((m, j) =>
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
    expect(
      (await t.post('/auth/admin/setup', messSetup({ messName: 'Central' }), { token: admin })).status,
    ).toBe(200);
    for (const [i, slug] of slugs.entries()) {
      const made = await t.post(
        '/messes',
        messSetup({
          messName: slug[0].toUpperCase() + slug.slice(1),
          slug,
          capacity: i === 2 ? undefined : 400,
        }),
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
      // 180 choosers of one mess: their notices are one event, one insert statement (in the order of the draw).
      const choosers: Member[] = [];
      for (let i = 0; i < 3 * PER_MESS; i += 1)
        choosers.push(await t.member('student', { messId: messIds[0], fullName: `Second ${i}` }));
      // Moved later (effectiveFrom to come): at the close only the lottery and its notices, so the one cycle is the
      // test's (the moves' own locks are the first test's).
      const windowId = await windowWithChoosers('2031 even semester', '2030-05-10', choosers, '2031-01-01');
      const key = (m: { id: string }) => `MESS_ALLOCATED:${windowId}:${m.id}`;
      // The relay's notify is held at its first read (the members' preferences) by a table lock on a second
      // connection, until the allocation has committed. A third writes X's notice and keeps it uncommitted; the
      // table lock goes, and the service's insert of the notices, reaching X's row, waits for it. The third then
      // writes the notice of Y, one the waiting insert has already written: it waits for the service's
      // transaction, which waits for it, a deadlock. The test's session waits 20 s before looking for one, the
      // service's 1 s: the service's statement is the one PostgreSQL cancels (40P01), and its transaction must be
      // run again, whole.
      const x = choosers[0];
      const client = new Client({ connectionString: t.databaseUrl });
      client.on('error', () => undefined);
      await client.connect();
      const holder = new Client({ connectionString: t.databaseUrl });
      holder.on('error', () => undefined);
      await holder.connect();
      // Watched from a connection outside any transaction: pg_stat_activity is one snapshot per transaction.
      const watcher = new Client({ connectionString: t.databaseUrl });
      watcher.on('error', () => undefined);
      await watcher.connect();
      const pidOf = async (c: Client) =>
        (await c.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid;
      const waitForBlocked = async (by: Client, like: string) => {
        const blocker = await pidOf(by);
        for (const started = Date.now(); ;) {
          const { rows } = await watcher.query(
            `select query from pg_stat_activity where $1::int = any(pg_blocking_pids(pid))`,
            [blocker],
          );
          if (rows.some((r: { query: string }) => r.query.toLowerCase().includes(like))) return;
          if (Date.now() - started > 60_000) {
            const { rows: activity } = await watcher.query(
              `select pid, state, wait_event_type, pg_blocking_pids(pid) as blocked_by, left(query, 120) as query
                 from pg_stat_activity where datname = current_database() and state <> 'idle'
               union all select pid, mode, locktype, null, relation::regclass::text from pg_locks where not granted
               union all select null, name, done_at::text, null, last_error from outbox_events
               union all select null, term, seed, null, allocated_at::text from mess_windows`,
            );
            throw new Error(`no statement like ${like} waited for the test: ${JSON.stringify(activity)}`);
          }
          await new Promise((r) => setTimeout(r, 50));
        }
      };
      const insertNotice = (m: { id: string }) =>
        client.query(
          `insert into notifications (mess_id, user_id, type, title, content, dedupe_key)
           values ($1, $2, 'MESS_ALLOCATED', 'test', 'test', $3) on conflict do nothing`,
          [messIds[0], m.id, key(m)],
        );
      try {
        const deadlocksBefore = await deadlocks(client);
        await holder.query('begin');
        await holder.query('lock table notification_preferences in access exclusive mode');
        const closing = closeAt('2030-05-10');
        await waitForBlocked(holder, 'from "notification_preferences"');
        await client.query('begin');
        await client.query(`set local deadlock_timeout = '20s'`);
        await insertNotice(x);
        await holder.query('rollback');
        await waitForBlocked(client, 'insert into "notifications"');
        // Y: drawn before X, so the waiting insert holds Y's notice (the allocation has committed).
        const { rows: before } = await client.query<{ user_id: string }>(
          `select user_id from mess_window_allocations
            where window_id = $1
              and position < (select position from mess_window_allocations where window_id = $1 and user_id = $2)
            limit 1`,
          [windowId, x.id],
        );
        expect(before).toHaveLength(1); // X drawn first of 180: 1 in 180
        await insertNotice({ id: before[0].user_id });
        // The service's insert was the one cancelled (ours went through): undo ours, let the retry in.
        await client.query('rollback');
        expect(await deadlocks(client)).toBeGreaterThan(deadlocksBefore);
        await closing;
        await deliver();
        expect(mailsPerChooser(choosers)).toEqual(choosers.map(() => 1));
        const { rows: notices } = await client.query<{ n: string }>(
          `select count(*)::text as n from notifications where dedupe_key like $1`,
          [`MESS_ALLOCATED:${windowId}:%`],
        );
        expect(Number(notices[0].n)).toBe(choosers.length);
      } finally {
        await client.end();
        await holder.end();
        await watcher.end();
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
