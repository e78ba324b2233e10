import { Client } from 'pg';
import { ADMIN } from '../support/app';
import { databaseEnv, freshDatabase, type TestDatabase, usingServer } from '../support/database';
import { MailServer } from '../support/mail-server';
import { messSetup } from '../support/mess-setup';
import { buildIfStale, registerMember, ServiceProcess } from '../support/service-process';

type Member = Awaited<ReturnType<typeof registerMember>>;
type Kind = 'receipt' | 'leave' | 'allocation' | 'reset' | 'reminder';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const FIRST_MESS = '00000000-0000-4000-8000-000000000001';
const POLICY = { minDays: 1, applyBeforeHours: 0, maxDaysPerMonth: 31, requiresApproval: true };
const hhmm = (minutes: number) =>
  `${String(Math.floor(minutes / 60) % 24).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
const minuteOfDay = () => new Date().getUTCHours() * 60 + new Date().getUTCMinutes();
// Half a day away, and over before midnight (a meal may not run past it): from 11:00 to 12:00 UTC it starts at 22:59.
const FAR_START = Math.min((minuteOfDay() + 720) % 1440, 1440 - 61);
const FAR_MEAL = {
  name: 'Far',
  startTime: hhmm(FAR_START),
  endTime: hhmm(FAR_START + 60),
};

/**
 * Issue 45, must-show 2: a chaos test for every message-promising event type. One real service process (server
 * engine) with the real SMTP server; ROUNDS rounds (20 by default, OUTBOX_CHAOS_ROUNDS; about 5 minutes, most of it
 * the four reminder rounds' minutes and the settling) cycle through the types:
 *
 * - receipt: the treasurer records a payment for each of 8 members at once (`POST /accounts/:id/payments`);
 * - leave: 8 pending leaves approved or rejected by the manager at once;
 * - allocation: a small term window (6 choosers, moves at the close) closed (`POST /mess-windows/:id/close`);
 * - reset: 8 members ask for a password-reset link at once (the public `POST /auth/password/forgot`);
 * - reminder: a meal is added that starts within the reminder lead; the kill comes around the minute tick that
 *   decides its reminders (the round waits for the minute; the other types' rounds run meanwhile).
 *
 * Each round the process is killed with SIGKILL at a random point (0–900 ms after the load starts, a third of them
 * in the first 100 ms: before, at or after the commits, while the relay hands the events on, while mails are sent;
 * the first round of each type 0–300 ms after the load's answers, so each type certainly promises something; a
 * reminder round 1.5 s before to 3 s after the tick) and started again on the same database. The rounds do not wait for delivery: a round's kill also cuts the relay and the delivery of the rounds
 * before it (a claimed outbox row lapses after 30 s and is taken by the 30 s sweep; a delivery job active at the
 * kill expires after NOTIFY_JOB_EXPIRE_SECONDS, here 30, and pg-boss's minute supervision hands it on again), so
 * the settling is polled once, after the last round, until every promise is met or 4 minutes have passed.
 *
 * Then the promises are derived from the committed changes in the database, not from the notifications: each
 * payment (account_entries kind payment), each decision of a leave by someone else (leaves approved/rejected with
 * decided_by), each reset token (password_reset_tokens), each allocation line (mess_window_allocations) promises
 * one mail to its member; for the reminders the tick's decision is the notification row (MEAL_REMINDER), and each
 * reminder meal must have been decided by some tick (a tick killed before its commit is caught up by the next).
 * A promise is met when its member received mail with the Message-ID of its notification (`<notification
 * id@domain>`, found through the notification's dedupe key): exactly one distinct Message-ID per promise; the same
 * Message-ID received again (a delivery the kill cut between the SMTP server's acceptance and its record) is one
 * message sent again: counted as a resend, never as a second message. Every mail received must belong to a
 * promise (none for a change that did not commit).
 *
 * On the embedded engine the test is skipped: it reads the committed changes straight from the database while the
 * service runs, and the embedded engine's data directory is open to its one process only.
 */
const server = usingServer();
if (!server)
  console.log(
    'outbox chaos: skipped on the embedded engine (the promises are read from the database while the service runs; ' +
      "the embedded engine's data directory is open to its one process only). Run it with TEST_DATABASE_URL.",
  );
(server ? describe : describe.skip)('Outbox chaos: kill -9 under load, every message-promising type', () => {
  const mail = new MailServer();
  let database: TestDatabase;
  let service: ServiceProcess;
  let sql: Client;
  let admin: string;
  let treasurer: Member;
  let manager: Member;
  const payees: Member[] = [];
  const leavers: Member[] = [];
  const choosers: Member[] = [];

  beforeAll(async () => {
    await buildIfStale();
    await mail.start();
    database = await freshDatabase();
    service = await ServiceProcess.start(
      {
        ...databaseEnv(database),
        ...mail.env(),
        MESS_TIMEZONE: 'UTC',
        RATE_LIMIT_PER_MINUTE: '100000',
        LOGIN_RATE_LIMIT_PER_MINUTE: '10000',
        LOGIN_RATE_LIMIT_PER_EMAIL: '10000',
        BCRYPT_QUEUE_TIMEOUT_MS: '60000',
        NOTIFY_SCHEDULES_ENABLED: 'true',
        NOTIFY_WORKER_ENABLED: 'true',
        NOTIFY_WORKER_POLL_SECONDS: '1',
        NOTIFY_MEAL_REMINDER_MINUTES: '60',
        NOTIFY_ATTENDANCE_CONFIRMATION_MINUTES: '1',
        NOTIFY_HEADCOUNT_MINUTES: '1',
        // A delivery job active at a kill is taken again after this (the least allowed), and retried at once.
        NOTIFY_JOB_EXPIRE_SECONDS: '30',
        NOTIFY_RETRY_DELAY_SECONDS: '1',
        NOTIFY_RETRY_DELAY_MAX_SECONDS: '5',
      },
      'service (server engine)',
    );
    // The test reads the committed changes on the direct connection (not through a pooler).
    sql = new Client({ connectionString: database.directUrl ?? database.url });
    sql.on('error', () => undefined);
    await sql.connect();
    admin = await service.login(ADMIN.email, ADMIN.password);
    // One meal half a day away (UTC, the mess's time zone): the leaves cover it, no tick reminds it. The reminder
    // rounds add theirs.
    expect(
      (
        await service.request('POST', '/auth/admin/setup', {
          token: admin,
          body: messSetup({ leavePolicy: POLICY, mealTimes: [FAR_MEAL] }),
        })
      ).status,
    ).toBe(200);
    const annex = await service.request('POST', '/messes', {
      token: admin,
      body: messSetup({ messName: 'Annex', slug: 'annex', mealTimes: [FAR_MEAL] }),
    });
    expect(annex.status).toBe(201);
    treasurer = await registerMember(service, admin, 'treasurer', 0);
    manager = await registerMember(service, admin, 'manager', 1);
    const batch = async (into: Member[], from: number, n: number) => {
      for (let i = 0; i < n; i += 4)
        into.push(
          ...(await Promise.all(
            Array.from({ length: Math.min(4, n - i) }, (_, j) =>
              registerMember(service, admin, 'student', from + i + j),
            ),
          )),
        );
    };
    await batch(payees, 100, 8);
    await batch(leavers, 200, 8);
    await batch(choosers, 300, 6);
  }, 600_000);

  afterAll(async () => {
    await service?.kill('SIGKILL');
    await sql?.end();
    await database?.drop();
    await mail.stop();
  });

  const rows = async <T>(text: string, values: unknown[] = []) => (await sql.query(text, values)).rows as T[];

  it('messages promised by committed changes = messages delivered, none twice, none unpromised', async () => {
    const ROUNDS = Number(process.env.OUTBOX_CHAOS_ROUNDS ?? 20);
    const started = Date.now();
    const order: Kind[] = ['receipt', 'leave', 'allocation', 'reset', 'reminder'];
    const plan: Kind[] = Array.from({ length: ROUNDS }, (_, i) => order[i % order.length]);
    /** Per round: its type, kill delay, and the time interval its changes fall in. */
    const rounds: {
      kind: Kind;
      delay: number;
      from: Date;
      to: Date;
      /** The load's answers: status → count (0: no answer, the process died under the request). */
      answers?: string;
      afterAnswers?: boolean;
      windowId?: string;
      meal?: string;
    }[] = [];
    const meals: { name: string; startTime: string; endTime: string }[] = [];
    const typeRound = new Map<Kind, number>();
    let lastReminderMinute = -1;

    /**
     * Kills at `delay` ms from now while `load` runs (`afterAnswers`: `delay` ms after its last answer), waits for
     * its answers, starts again on the same database; returns the answers' statuses counted ("201×5 0×3").
     */
    const killDuring = async (
      load: () => Promise<{ status: number }>[],
      delay: number,
      afterAnswers = false,
    ) => {
      const answers = load().map((p) => p.then((r) => r.status).catch(() => 0));
      if (afterAnswers) await Promise.all(answers);
      await sleep(delay);
      expect((await service.kill('SIGKILL')).signal).toBe('SIGKILL');
      const statuses = await Promise.all(answers);
      await service.restart();
      return [...new Set(statuses)]
        .sort()
        .map((s) => `${s}×${statuses.filter((x) => x === s).length}`)
        .join(' ');
    };

    const relogin = async (m: Member) => {
      m.token = await service.login(m.email, m.password);
    };

    const runRound = async (kind: Kind) => {
      const n = typeRound.get(kind) ?? 0;
      typeRound.set(kind, n + 1);
      const round: (typeof rounds)[number] = { kind, delay: -1, from: new Date(), to: new Date() };
      // The first round of a type is killed 0–300 ms after the load's answers (its changes committed: the test
      // cannot pass for want of a promise); the others a third early in the load (0–100 ms: mostly before the
      // commits), the rest 100–900 ms in (at and after them, while the relay hands the events on and the mails are
      // sent).
      const afterAnswers = n === 0;
      const delay = Math.floor(
        afterAnswers
          ? 300 * Math.random()
          : Math.random() < 1 / 3
            ? 100 * Math.random()
            : 100 + 800 * Math.random(),
      );
      round.afterAnswers = afterAnswers && kind !== 'reminder';
      if (kind === 'receipt') {
        round.from = new Date();
        round.delay = delay;
        round.answers = await killDuring(
          () =>
            payees.map((m, i) =>
              service.request('POST', `/accounts/${m.id}/payments`, {
                token: treasurer.token,
                body: { amount: 100 + rounds.length * 10 + i, date: '2025-04-01', method: 'cash' },
              }),
            ),
          delay,
          afterAnswers,
        );
      } else if (kind === 'leave') {
        const day = new Date(Date.UTC(2031, 0, 1 + 2 * n)).toISOString().slice(0, 10);
        const ids: string[] = [];
        for (const m of leavers) {
          const asked = await service.request('POST', '/leaves', {
            token: m.token,
            body: { startDate: day, endDate: day, reason: `chaos ${rounds.length}` },
          });
          expect(asked.status).toBe(201);
          expect(asked.body.leave.status).toBe('pending');
          ids.push(asked.body.leave._id as string);
        }
        round.from = new Date();
        round.delay = delay;
        round.answers = await killDuring(
          () =>
            ids.map((id, i) =>
              service.request('PUT', `/leaves/${id}/${i % 2 ? 'reject' : 'approve'}`, {
                token: manager.token,
                ...(i % 2 ? { body: { reason: 'no' } } : {}),
              }),
            ),
          delay,
          afterAnswers,
        );
      } else if (kind === 'allocation') {
        const today = `${new Date().toISOString().slice(0, 8)}01`;
        const created = await service.request('POST', '/mess-windows', {
          token: admin,
          body: {
            term: `chaos term ${rounds.length}`,
            opensAt: new Date(Date.now() + 1_500).toISOString(),
            closesAt: new Date(Date.now() + 3_600_000).toISOString(),
            effectiveFrom: today,
            messes: [FIRST_MESS, 'annex'],
          },
        });
        expect(created.status).toBe(201);
        const id = created.body.window._id as string;
        round.windowId = id;
        await sleep(2_000);
        await Promise.all(
          choosers.map(async (m, j) => {
            const body = { preferences: (j + n) % 2 ? ['annex'] : [FIRST_MESS] };
            let res = await service.request('PUT', `/mess-windows/${id}/choice`, { token: m.token, body });
            if (res.status === 401) {
              // A move ends the member's sessions.
              await relogin(m);
              res = await service.request('PUT', `/mess-windows/${id}/choice`, { token: m.token, body });
            }
            expect(res.status).toBe(200);
          }),
        );
        round.from = new Date();
        round.delay = delay;
        round.answers = await killDuring(
          () => [service.request('POST', `/mess-windows/${id}/close`, { token: admin })],
          delay,
          afterAnswers,
        );
        // A close that did not commit promised nothing; the window is closed now, without a kill (a promise too).
        const [window] = await rows<{ seed: string | null }>('select seed from mess_windows where id = $1', [
          id,
        ]);
        if (!window.seed) {
          expect((await service.request('POST', `/mess-windows/${id}/close`, { token: admin })).status).toBe(
            200,
          );
          round.answers += ', the close not committed: closed again after the restart';
        }
      } else if (kind === 'reset') {
        const who = [...payees, ...leavers].filter((_, i) => i % 2 === n % 2);
        round.from = new Date();
        round.delay = delay;
        round.answers = await killDuring(
          () =>
            who.map((m) => service.request('POST', '/auth/password/forgot', { body: { email: m.email } })),
          delay,
          afterAnswers,
        );
      } else {
        // A meal 20+ minutes ahead (within the 60-minute lead), added before the next minute's tick decides it;
        // the earlier rounds' meals stay, so a tick killed before its commit is caught up by the next one.
        const start = Math.min((minuteOfDay() + 20 + 2 * meals.length) % 1440, 1438);
        const meal = {
          name: `Chaos meal ${rounds.length}`,
          startTime: hhmm(start),
          endTime: hhmm(start + 1),
        };
        meals.push(meal);
        round.meal = meal.name;
        const put = await service.request('PUT', '/auth/admin/config', {
          token: admin,
          body: messSetup({ leavePolicy: POLICY, mealTimes: [FAR_MEAL, ...meals] }),
        });
        expect(put.status).toBe(200);
        // The tick fires at second 0: the kill comes from 1.5 s before it to 3 s after it.
        const boundary = Math.ceil(Date.now() / 60_000) * 60_000;
        lastReminderMinute = boundary;
        const at = boundary - 1_500 + Math.floor(Math.random() * 4_500);
        round.from = new Date(Math.min(Date.now(), at));
        round.delay = at - boundary;
        await killDuring(() => [], Math.max(0, at - Date.now()));
      }
      round.to = new Date();
      rounds.push(round);
      // Sessions end with a move; the relogins are made here, outside the kills.
      for (const m of choosers)
        if ((await service.request('GET', '/auth/verify', { token: m.token })).status === 401)
          await relogin(m);
    };

    // The reminder rounds need a minute's tick each: one runs whenever a minute is near (and not yet used), the
    // other types' rounds in between, in the plan's order.
    const queue = [...plan];
    while (queue.length) {
      const toBoundary = 60_000 - (Date.now() % 60_000);
      const nextMinute = Math.ceil(Date.now() / 60_000) * 60_000;
      // A round of another type takes up to ~10 s: the reminder round waits for a minute less than 25 s away.
      const minuteFree = toBoundary <= 25_000 && nextMinute !== lastReminderMinute;
      const reminder = queue.indexOf('reminder');
      const other = queue.findIndex((k) => k !== 'reminder');
      let next = reminder >= 0 && (minuteFree || other < 0) ? reminder : other;
      if (next === reminder && !minuteFree) {
        await sleep(Math.max(0, toBoundary - 20_000) + (nextMinute === lastReminderMinute ? 60_000 : 0));
        next = queue.indexOf('reminder');
      }
      const [kind] = queue.splice(next, 1);
      await runRound(kind);
    }
    const roundsEnded = Date.now();

    // ---- what the committed changes promise, and what the SMTP server received ----
    interface Promise_ {
      key: string;
      userId: string;
      kind: Kind;
      at: Date;
      round?: number;
    }
    const roundOf = (kind: Kind, at: Date, windowId?: string) => {
      const i = windowId
        ? rounds.findIndex((r) => r.windowId === windowId)
        : rounds.findIndex((r) => at >= r.from && at <= r.to);
      return i >= 0 ? i : undefined;
    };
    const promises = async (): Promise<Promise_[]> => {
      const out: Promise_[] = [];
      for (const p of await rows<{ id: string; user_id: string; created_at: Date }>(
        `select id, user_id, created_at from account_entries where kind = 'payment'`,
      ))
        out.push({ key: `PAYMENT_RECEIVED:${p.id}`, userId: p.user_id, kind: 'receipt', at: p.created_at });
      for (const l of await rows<{ id: string; user_id: string; status: string; decided_at: Date }>(
        `select id, user_id, status, decided_at from leaves
          where status in ('approved', 'rejected') and decided_by is not null and decided_by <> user_id`,
      ))
        out.push({
          key: `LEAVE_DECIDED:${l.id}:${l.status}`,
          userId: l.user_id,
          kind: 'leave',
          at: l.decided_at,
        });
      for (const t of await rows<{ token_hash: string; user_id: string; created_at: Date }>(
        'select token_hash, user_id, created_at from password_reset_tokens',
      ))
        out.push({
          key: `PASSWORD_RESET:${t.token_hash}`,
          userId: t.user_id,
          kind: 'reset',
          at: t.created_at,
        });
      for (const a of await rows<{ window_id: string; user_id: string }>(
        'select window_id, user_id from mess_window_allocations',
      ))
        out.push({
          key: `MESS_ALLOCATED:${a.window_id}:${a.user_id}`,
          userId: a.user_id,
          kind: 'allocation',
          at: new Date(0),
          round: roundOf('allocation', new Date(0), a.window_id),
        });
      // The reminders: the tick's decision is the notification row.
      for (const r of await rows<{ dedupe_key: string; user_id: string; created_at: Date }>(
        `select dedupe_key, user_id, created_at from notifications where type = 'MEAL_REMINDER'`,
      ))
        out.push({ key: r.dedupe_key, userId: r.user_id, kind: 'reminder', at: r.created_at });
      for (const p of out) if (p.kind !== 'allocation') p.round = roundOf(p.kind, p.at);
      return out;
    };

    const messageIdOf = (raw: string | undefined) => /<([0-9a-f-]{36})@/i.exec(raw ?? '')?.[1];
    const compare = async () => {
      const promised = await promises();
      const notices = await rows<{ id: string; user_id: string; dedupe_key: string | null; type: string }>(
        'select id, user_id, dedupe_key, type from notifications',
      );
      const emails = new Map(
        (await rows<{ id: string; email: string }>('select id, email from users')).map((u) => [
          u.id,
          u.email,
        ]),
      );
      const byKey = new Map(notices.filter((n) => n.dedupe_key).map((n) => [n.dedupe_key!, n]));
      const received = new Map<string, number>();
      const strays: string[] = [];
      for (const m of mail.received) {
        const id = messageIdOf(m.headers['message-id']);
        if (!id) strays.push(`no Message-ID: ${m.subject}`);
        else received.set(id, (received.get(id) ?? 0) + 1);
      }
      const promisedIds = new Set<string>();
      const results = promised.map((p) => {
        const notice = byKey.get(p.key);
        if (notice) promisedIds.add(notice.id);
        const got = notice ? (received.get(notice.id) ?? 0) : 0;
        const toRightMember =
          !notice ||
          (notice.user_id === p.userId &&
            mail.received
              .filter((m) => messageIdOf(m.headers['message-id']) === notice.id)
              .every((m) => m.to.includes(emails.get(p.userId)!)));
        return { ...p, notice: notice?.id, mails: got, toRightMember };
      });
      for (const [id, count] of received)
        if (!promisedIds.has(id)) {
          const n = notices.find((x) => x.id === id);
          strays.push(`${count} mail(s) of ${n ? `${n.type} ${n.dedupe_key}` : `no notification (${id})`}`);
        }
      const [{ pending }] = await rows<{ pending: number }>(
        'select count(*)::int as pending from outbox_events where done_at is null',
      );
      const [{ unsent }] = await rows<{ unsent: number }>(
        `select count(*)::int as unsent from notifications where status in ('queued', 'retrying')`,
      );
      const remindedMeals = new Set(
        promised.filter((p) => p.kind === 'reminder').map((p) => p.key.split(':')[2]),
      );
      const unreminded = rounds.filter((r) => r.meal && !remindedMeals.has(r.meal)).map((r) => r.meal!);
      return { results, strays, pending, unsent, unreminded };
    };

    let state = await compare();
    const settled = (s: typeof state) =>
      s.pending === 0 && s.unsent === 0 && s.unreminded.length === 0 && s.results.every((r) => r.mails > 0);
    for (
      const waitStart = Date.now();
      !settled(state) && Date.now() - waitStart < 240_000;
      state = await compare()
    )
      await sleep(1_000);
    const settledAfter = Date.now() - roundsEnded;
    // A mail sent twice (a second Message-ID) would be written by now: the queue and the outbox are empty.
    await sleep(1_000);
    state = await compare();

    const log = rounds.map((r, i) => {
      const mine = state.results.filter((p) => p.round === i);
      const kinds = [...new Set(mine.map((p) => p.kind))]
        .map((k) => `${k} ${mine.filter((p) => p.kind === k).length}`)
        .join(', ');
      const delivered = mine.filter((p) => p.mails > 0).length;
      const resends = mine.reduce((n, p) => n + Math.max(0, p.mails - 1), 0);
      return (
        `round ${String(i + 1).padStart(2)} (+${String(Math.round((r.from.getTime() - started) / 1000)).padStart(3)} s) ${r.kind.padEnd(10)} kill ${r.kind === 'reminder' ? `${r.delay} ms from the tick` : `${r.delay} ms ${r.afterAnswers ? 'after the answers' : 'into the load'}`}: ` +
        `${r.answers ? `answers ${r.answers}; ` : ''}committed ${mine.length}${kinds ? ` (${kinds})` : ''}, ` +
        `delivered ${delivered}, resends ${resends}`
      );
    });
    const outside = state.results.filter((p) => p.round === undefined);
    const total = {
      promised: state.results.length,
      delivered: state.results.filter((p) => p.mails > 0).length,
      once: state.results.filter((p) => p.mails === 1).length,
      resends: state.results.reduce((n, p) => n + Math.max(0, p.mails - 1), 0),
      mails: mail.received.length,
    };
    console.log(
      `outbox chaos (${ROUNDS} rounds, server engine):\n${log.join('\n')}\n` +
        `between/after the rounds (a reminder tick caught up, …): ${outside.length} promised, ` +
        `${outside.filter((p) => p.mails > 0).length} delivered\n` +
        `total: ${total.promised} promised, ${total.delivered} delivered, ${total.resends} resends ` +
        `(same Message-ID), ${total.mails} mails received, ${state.strays.length} unpromised; ` +
        `settled ${settledAfter} ms after the last round, rounds took ${roundsEnded - started} ms`,
    );
    const missing = state.results.filter((p) => p.mails === 0);
    expect(missing.map((p) => `${p.kind} ${p.key} (round ${p.round}, notice ${p.notice ?? 'none'})`)).toEqual(
      [],
    );
    expect(state.results.filter((p) => !p.toRightMember).map((p) => p.key)).toEqual([]);
    expect(state.strays).toEqual([]);
    expect(state.unreminded).toEqual([]);
    expect(state.pending).toBe(0);
    // Every type was promised and met somewhere.
    for (const kind of new Set(plan)) expect(state.results.some((p) => p.kind === kind)).toBe(true);
    expect(rounds).toHaveLength(ROUNDS);
  }, 1_500_000);
});
