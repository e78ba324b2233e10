import { databaseEnv, freshDatabase, type TestDatabase, usingServer } from '../support/database';
import { MailServer } from '../support/mail-server';
import {
  buildIfStale,
  expenseDescriptions,
  redisAnswers,
  registerMember,
  ServiceProcess,
  startWriters,
} from '../support/service-process';
import { ADMIN, messSetup } from '../support/app';

/**
 * Three processes of the built service (`dist/main.js`) against one PostgreSQL database and one Redis, as replicas
 * behind a load balancer run. Needs the server (TEST_DATABASE_URL) and Redis on 127.0.0.1:6379; skipped otherwise.
 */
const redisUp = redisAnswers();
const canRun = usingServer() && redisUp;
const why = !usingServer()
  ? 'no TEST_DATABASE_URL: replicas share a PostgreSQL server, the embedded engine is one process'
  : 'no Redis answering on 127.0.0.1:6379';
if (!canRun) {
  // Said once, in the output of the run, next to the skipped tests.
  process.stdout.write(`replicas.e2e-spec.ts skipped: ${why}\n`);
}
// CI sets TEST_REDIS_REQUIRED when Redis answered there: then a skip would hide a failure.
if (!canRun && usingServer() && process.env.TEST_REDIS_REQUIRED) {
  throw new Error('TEST_REDIS_REQUIRED is set but Redis does not answer PING on 127.0.0.1:6379');
}
const describeReplicas = canRun ? describe : describe.skip;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A distinct client address per purpose (TRUST_PROXY=1), so one test's logins do not use up another's limit. */
const clientIp = () => ({
  'x-forwarded-for': `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`,
});

/** Polls `check` until it is true; returns the milliseconds it took, or throws after `limitMs`. */
async function within(limitMs: number, check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await check()) return performance.now() - started;
    if (performance.now() - started > limitMs) throw new Error(`not seen within ${limitMs} ms`);
    await sleep(20);
  }
}

/** HH:MM of a minute of the day. */
const hhmm = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

describeReplicas('Three replicas on one PostgreSQL database and Redis', () => {
  const mail = new MailServer();
  let database: TestDatabase;
  const replicas: ServiceProcess[] = [];
  let a: ServiceProcess;
  let b: ServiceProcess;
  let c: ServiceProcess;
  let admin: string;
  let treasurer: { token: string };
  const students: { email: string }[] = [];

  beforeAll(async () => {
    await buildIfStale();
    database = await freshDatabase();
    await mail.start();
    const env = {
      ...databaseEnv(database),
      REDIS_URL: 'redis://127.0.0.1:6379',
      ...mail.env(),
      MESS_TIMEZONE: 'UTC',
      // The schedules and the delivery worker run by themselves, as in production, on every replica.
      NOTIFY_SCHEDULES_ENABLED: 'true',
      MESS_WINDOWS_SCHEDULE_ENABLED: 'true',
      NOTIFY_WORKER_ENABLED: 'true',
      NOTIFY_WORKER_POLL_SECONDS: '1',
      NOTIFY_MEAL_REMINDER_MINUTES: '60',
      NOTIFY_ATTENDANCE_CONFIRMATION_MINUTES: '1',
      NOTIFY_HEADCOUNT_MINUTES: '1',
      TRUST_PROXY: '1',
      LOGIN_RATE_LIMIT_PER_MINUTE: '5',
      RATE_LIMIT_PER_MINUTE: '100000',
    };
    // One after the other: the first applies any migration (under its advisory lock either way).
    for (const name of ['replica A', 'replica B', 'replica C'])
      replicas.push(await ServiceProcess.start(env, name));
    [a, b, c] = replicas;
    admin = await a.login(ADMIN.email, ADMIN.password, clientIp());
    treasurer = await registerMember(b, admin, 'treasurer', 1, clientIp());
    // Students first: the meal reminder goes to whoever is a member when a tick finds the meal due.
    for (let n = 0; n < 4; n += 1)
      students.push(await registerMember(replicas[n % 3], admin, 'student', 10 + n, clientIp()));
  }, 400_000);

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.kill('SIGKILL')));
    await mail.stop();
    await database?.drop();
  });

  const configOf = async (r: ServiceProcess) =>
    (await r.request('GET', '/auth/admin/config', { token: admin })).body.config;

  it('sees a mess-configuration change made through one replica on the others within 1 s', async () => {
    // Each replica has the defaults cached (read twice: the second read is served from the cache).
    for (const r of replicas)
      for (let i = 0; i < 2; i += 1) expect((await configOf(r)).configured).toBe(false);
    // One meal that starts 45 minutes from now (mess time zone UTC): within the 60-minute reminder lead only.
    const now = new Date();
    const start = (now.getUTCHours() * 60 + now.getUTCMinutes() + 45) % 1440;
    const meal = { name: 'Supper', startTime: hhmm(start), endTime: hhmm(Math.min(start + 30, 1439)) };
    const setup = await a.request('POST', '/auth/admin/setup', {
      token: admin,
      body: messSetup({ mealTimes: [meal] }),
    });
    expect(setup.status).toBe(200);
    for (const r of [b, c]) {
      const ms = await within(1000, async () => (await configOf(r)).configured === true);
      expect(ms).toBeLessThan(1000);
    }
    // And back the other way: a replace through C, seen by A and B.
    const replaced = await c.request('PUT', '/auth/admin/config', {
      token: admin,
      body: messSetup({ messName: 'Renamed on C', mealTimes: [meal] }),
    });
    expect(replaced.status).toBe(200);
    for (const r of [a, b]) {
      const ms = await within(1000, async () => (await configOf(r)).messName === 'Renamed on C');
      expect(ms).toBeLessThan(1000);
    }
  });

  it('ends a session on every replica within 1 s: a logout through one, a rejection through another, an erasure', async () => {
    const verify = async (r: ServiceProcess, token: string) =>
      (await r.request('GET', '/auth/verify', { token })).status;
    const first = await registerMember(a, admin, 'student', 30, clientIp());
    const second = await registerMember(b, admin, 'student', 31, clientIp());
    const third = await registerMember(c, admin, 'student', 32, clientIp());
    // Every replica has the tokens' holders cached (each used twice).
    for (const r of replicas)
      for (const { token } of [first, second, third])
        for (let i = 0; i < 2; i += 1) expect(await verify(r, token)).toBe(200);
    // Extension 2.3: an erasure through B ends the member's tokens on A and C too.
    const erased = await b.request('POST', `/users/${third.id}/erase`, {
      token: admin,
      body: { confirm: true },
    });
    expect(erased.status).toBe(200);
    for (const r of [a, c])
      expect(await within(1000, async () => (await verify(r, third.token)) === 401)).toBeLessThan(1000);
    expect((await a.request('POST', '/auth/logout', { token: first.token })).status).toBe(200);
    for (const r of [b, c])
      expect(await within(1000, async () => (await verify(r, first.token)) === 401)).toBeLessThan(1000);
    expect((await c.request('PUT', `/users/${second.id}/reject`, { token: admin })).status).toBe(200);
    for (const r of [a, b])
      expect(await within(1000, async () => (await verify(r, second.token)) === 401)).toBeLessThan(1000);
  });

  it('delivers each scheduled notification exactly once, whichever replica ticks first', async () => {
    // Every replica's cron ticks each minute and finds the Supper reminder due; the SMTP server counts.
    const remindersTo = (email: string) =>
      mail.received.filter((m) => m.to.includes(email) && /supper/i.test(m.subject + m.text));
    await within(130_000, async () => students.every((s) => remindersTo(s.email).length >= 1));
    await sleep(3_000); // a second copy would come from the same tick of another replica: give it time to arrive
    for (const s of students) expect(remindersTo(s.email)).toHaveLength(1);
    // Nothing else went twice either.
    const seen = new Map<string, number>();
    for (const m of mail.received)
      for (const to of m.to) seen.set(`${to} ${m.subject}`, (seen.get(`${to} ${m.subject}`) ?? 0) + 1);
    expect([...seen].filter(([, n]) => n > 1)).toEqual([]);
  }, 180_000);

  it('shows a write made through one replica in the analytics of another within 1 s', async () => {
    const total = async (r: ServiceProcess) => {
      const res = await r.request('GET', '/analytics/shares?month=2025-06&method=proportional', {
        token: treasurer.token,
      });
      expect(res.status).toBe(200);
      return res.body.totalExpenses as number;
    };
    for (const r of replicas) for (let i = 0; i < 2; i += 1) expect(await total(r)).toBe(0); // cached on each
    const spent = await a.request('POST', '/expenses', {
      token: treasurer.token,
      body: { category: 'Groceries', amount: 123.45, date: '2025-06-10', description: 'through A' },
    });
    expect(spent.status).toBe(201);
    for (const r of [b, c]) {
      const ms = await within(1000, async () => (await total(r)) === 123.45);
      expect(ms).toBeLessThan(1000);
    }
  });

  it('shares rate limits: five failed logins a minute from one address in all, whichever replica answers', async () => {
    const ip = clientIp();
    const statuses: number[] = [];
    for (let i = 0; i < 9; i += 1) {
      const res = await replicas[i % 3].request('POST', '/auth/login', {
        body: { email: `nobody-${i}@test.local`, password: 'a-guess-123' },
        headers: ip,
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([404, 404, 404, 404, 404, 429, 429, 429, 429]);
  });

  it('makes one closure when two replicas close the same month at the same moment', async () => {
    const answers = await Promise.all(
      replicas.map((r) => r.request('POST', '/analytics/months/2025-05/close', { token: treasurer.token })),
    );
    expect(answers.map((x) => x.status).sort()).toEqual([200, 409, 409]);
    const status = await c.request('GET', '/analytics/months/2025-05', { token: treasurer.token });
    expect(status.body.closed).toBe(true);
    expect(status.body.history).toHaveLength(1);
  });

  it('publishes each slot of the weekly menu once when three replicas set the same rotation at the same moment', async () => {
    const manager = await registerMember(a, admin, 'manager', 40, clientIp());
    const today = new Date().toISOString().slice(0, 10); // the mess time zone is UTC here
    const dayMs = 86_400_000;
    const plus = (days: number) => new Date(Date.parse(today) + days * dayMs).toISOString().slice(0, 10);
    const weekday = (new Date(`${today}T00:00:00Z`).getUTCDay() + 6) % 7;
    const body = {
      startsOn: plus(-weekday - 7), // a Monday a week or more ago
      weeks: 1,
      entries: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].map((day) => ({
        week: 1,
        day,
        mealType: 'Supper',
        dishes: [`Supper of ${day}`],
      })),
    };
    const answers = await Promise.all(
      replicas.map((r) => r.request('PUT', '/meals/rotation', { token: manager.token, body })),
    );
    expect(answers.map((x) => x.status)).toEqual([200, 200, 200]);
    for (let i = 0; i < 14; i += 1) {
      const listed = await replicas[i % 3].request('GET', `/meals?date=${plus(i)}`, { token: manager.token });
      // today's Supper may have started before a later set: then it stays as the first set published it
      expect(
        listed.body.meals.map((m: { mealType: string; source: string }) => [m.mealType, m.source]),
      ).toEqual([['Supper', 'rotation']]);
    }
  });

  it('allocates a term window once at closesAt and moves each member once, with three replicas ticking', async () => {
    const made = async (slug: string, capacity?: number) =>
      (
        await a.request('POST', '/messes', {
          token: admin,
          body: messSetup({ messName: `Term ${slug}`, slug, capacity }),
        })
      ).body.mess._id as string;
    const ids = {
      'term-n': await made('term-n', 2),
      'term-s': await made('term-s', 10),
      'term-e': await made('term-e'),
    };
    // Six students, three in term-s and three in term-e; all want term-n first (2 seats), then their second choice.
    const chooser: { id: string; token: string; email: string; from: string; preferences: string[] }[] = [];
    for (let n = 0; n < 6; n += 1) {
      const member = await registerMember(replicas[n % 3], admin, 'student', 60 + n, clientIp());
      const from = n < 3 ? 'term-s' : 'term-e';
      expect(
        (await a.request('PUT', `/users/${member.id}/mess`, { token: admin, body: { mess: from } })).status,
      ).toBe(200);
      chooser.push({ ...member, from, preferences: ['term-n', n % 2 ? 'term-e' : 'term-s'] });
    }
    const now = Date.now();
    const firstOfMonth = new Date(now).toISOString().slice(0, 8) + '01'; // begun: the moves come with the lottery
    const created = await b.request('POST', '/mess-windows', {
      token: admin,
      body: {
        term: `replicas ${now}`,
        opensAt: new Date(now - 60_000).toISOString(),
        closesAt: new Date(now + 4_000).toISOString(),
        effectiveFrom: firstOfMonth,
        messes: Object.keys(ids),
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.window._id;
    for (const [i, m] of chooser.entries()) {
      const saved = await replicas[i % 3].request('PUT', `/mess-windows/${id}/choice`, {
        token: m.token,
        body: { preferences: m.preferences },
      });
      expect(saved.status).toBe(200);
    }
    // The three schedulers tick at the same second of each minute: one of them allocates and moves.
    await within(90_000, async () => {
      const w = await c.request('GET', `/mess-windows/${id}`, { token: admin });
      return w.body.window.status === 'applied';
    });
    const allocation = (await a.request('GET', `/mess-windows/${id}/allocation`, { token: admin })).body;
    expect(allocation.allocations).toHaveLength(6);
    expect(allocation.summary.byMess.map((m: { placed: number }) => m.placed)[0]).toBe(2);
    for (const slug of Object.keys(ids)) {
      const audit = await a.request('GET', `/audit?entity=window&entityId=${id}&mess=${slug}`, {
        token: admin,
      });
      expect(audit.body.events.map((e: { action: string }) => e.action).sort()).toEqual([
        'closed',
        'created',
      ]);
    }
    for (const line of allocation.allocations as {
      user: { _id: string };
      from: { slug: string };
      to: { slug: string } | null;
    }[]) {
      const member = await a.request('GET', `/users/${line.user._id}`, { token: admin });
      expect(member.body.user.mess.slug).toBe(line.to?.slug ?? line.from.slug);
      // Moved once: one `moved` audit row for the term's move into its new mess (besides the setup's move).
      if (line.to && line.to.slug !== line.from.slug) {
        const moves = await a.request(
          'GET',
          `/audit?entity=user&entityId=${line.user._id}&mess=${line.to.slug}`,
          {
            token: admin,
          },
        );
        expect(moves.body.events.filter((e: { action: string }) => e.action === 'moved')).toHaveLength(1);
      }
    }
    // Each chooser is told once. Usually within 2 s; a listener that failed (its row stays in the outbox) is handed
    // on by a later sweep (every 30 s, after a 5 s wait), so the wait allows two sweeps. A slow one says why.
    const said = () =>
      replicas
        .map(
          (r) =>
            `--- ${r.name}\n${r.output
              .split('\n')
              .filter((l) => l.trim())
              .slice(-30)
              .join('\n')}`,
        )
        .join('\n');
    const told = () => chooser.map((m) => `${m.email}: ${mail.to(m.email).length} mail(s)`).join('; ');
    const tookMs = await within(75_000, async () =>
      chooser.every((m) => mail.to(m.email).some((x) => x.subject.includes(`replicas ${now}`))),
    ).catch((error: Error) => {
      throw new Error(`${error.message} after the allocation; ${told()}\n${said()}`);
    });
    if (tookMs > 10_000)
      process.stderr.write(
        `replicas: the allocation's mails took ${Math.round(tookMs)} ms; the replicas said:\n${said()}\n`,
      );
    await sleep(2_000);
    for (const m of chooser)
      expect(mail.to(m.email).filter((x) => x.subject.includes(`replicas ${now}`))).toHaveLength(1);
  }, 240_000);

  it('loses no acknowledged write when one replica is killed (SIGKILL) under load', async () => {
    const writers = startWriters(() => replicas, treasurer.token, '2025-07-15', 12);
    await within(60_000, async () => writers.acknowledged.size >= 60);
    await c.kill('SIGKILL');
    const atKill = writers.acknowledged.size;
    await within(60_000, async () => writers.acknowledged.size >= atKill + 60); // A and B carry on
    await writers.stop();
    const stored = await expenseDescriptions(a, treasurer.token, '2025-07');
    const counts = new Map<string, number>();
    for (const d of stored) counts.set(d, (counts.get(d) ?? 0) + 1);
    const lost = [...writers.acknowledged].filter((d) => !counts.has(d));
    const duplicated = [...counts].filter(([, n]) => n > 1);
    expect({ lost, duplicated }).toEqual({ lost: [], duplicated: [] });
    expect(writers.acknowledged.size).toBeGreaterThanOrEqual(120);
  }, 180_000);
});
