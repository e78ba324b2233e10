import { createHmac, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { ADMIN, messSetup } from '../support/app';
import { databaseEnv, freshDatabase, type TestDatabase, usingServer } from '../support/database';
import { buildIfStale, redisAnswers, ServiceProcess } from '../support/service-process';

/**
 * Issue 45, "replicas agree at the moment of the change": two processes of the built service on one database,
 * their invalidations over Redis, then over PostgreSQL NOTIFY (no Redis). Whatever one replica has acknowledged
 * (a batch move of 500 members, a demotion, a logout), the other never acts on the state before it: from the
 * acknowledgement on, every request sent to the other replica sees the new state, although that replica had each
 * member's token holder in its cache a moment before.
 */
const JWT_SECRET = 'replicas-moment-secret-long-enough-for-hs256-0123456789';
const MEMBERS = Number(process.env.MOMENT_MEMBERS ?? 500);
const STAFF = 30;

const redisUp = redisAnswers();
const transports: { name: string; env: Record<string, string> }[] = [
  ...(redisUp ? [{ name: 'Redis', env: { REDIS_URL: 'redis://127.0.0.1:6379' } }] : []),
  { name: 'PostgreSQL NOTIFY (no Redis)', env: {} },
];
if (!usingServer())
  process.stdout.write('replicas-moment.e2e-spec.ts skipped: replicas need a PostgreSQL server\n');
if (usingServer() && !redisUp && process.env.TEST_REDIS_REQUIRED)
  throw new Error('TEST_REDIS_REQUIRED is set but Redis does not answer PING on 127.0.0.1:6379');

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** A token as the service signs one (HS256, the member's token version 0, a week), with the same secret. */
function tokenFor(userId: string): string {
  const now = Math.floor(Date.now() / 1000);
  const head = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ sub: userId, ver: 0, iat: now, exp: now + 86_400, jti: randomUUID() })}`;
  return `${head}.${createHmac('sha256', JWT_SECRET).update(head).digest('base64url')}`;
}

/** Runs `work` over `items`, `width` at a time; the results in order. */
async function inParallel<T, R>(
  items: T[],
  width: number,
  work: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i], i);
    }),
  );
  return results;
}

(usingServer() ? describe.each(transports) : describe.skip.each(transports))(
  'Two replicas agree at the moment of a change, over $name',
  ({ env }) => {
    let database: TestDatabase;
    let one: ServiceProcess;
    let two: ServiceProcess;
    let admin: string;
    let sql: Client;
    let messA: string;
    let messB: string;
    const members: { id: string; token: string }[] = [];
    const today = new Date().toISOString().slice(0, 10);

    beforeAll(async () => {
      await buildIfStale();
      database = await freshDatabase();
      const settings = {
        ...databaseEnv(database),
        ...env,
        JWT_SECRET,
        MESS_TIMEZONE: 'UTC',
        RATE_LIMIT_PER_MINUTE: '1000000',
      };
      one = await ServiceProcess.start(settings, 'replica 1');
      two = await ServiceProcess.start(settings, 'replica 2');
      sql = new Client({ connectionString: database.directUrl ?? database.url });
      sql.on('error', () => undefined);
      await sql.connect();
      admin = await one.login(ADMIN.email, ADMIN.password);
      expect(
        (await one.request('POST', '/auth/admin/setup', { token: admin, body: messSetup() })).status,
      ).toBe(200);
      const annex = await one.request('POST', '/messes', {
        token: admin,
        body: messSetup({ messName: 'Annex', slug: 'annex' }),
      });
      expect(annex.status).toBe(201);
      [{ id: messA }] = (await sql.query<{ id: string }>(`select id from messes where slug <> 'annex'`)).rows;
      [{ id: messB }] = (await sql.query<{ id: string }>(`select id from messes where slug = 'annex'`)).rows;
      // Members of the first mess, asked for (pending, as a registration leaves them: no password, they sign in with
      // the tokens below) in one statement, then approved by the admin in one batch, as the service approves.
      const { rows } = await sql.query<{ id: string }>(
        `insert into users (email, full_name, college_id, room, phone, role, status, mess_id)
         select 'moment' || n || '@test.local', 'Member ' || n, 'M' || n, 'R-' || n, '+9197' || lpad(n::text, 8, '0'),
                'student', 'pending', $1
         from generate_series(1, $2::int) n
       returning id`,
        [messA, MEMBERS + STAFF],
      );
      const ids = rows.map((r) => r.id);
      for (let i = 0; i < ids.length; i += 1000) {
        const approved = await one.request('POST', '/users/approve', {
          token: admin,
          body: { userIds: ids.slice(i, i + 1000) },
        });
        expect(approved.status).toBe(200);
      }
      for (const id of ids) members.push({ id, token: tokenFor(id) });
    }, 600_000);

    afterAll(async () => {
      await sql?.end();
      await Promise.all([one, two].map((r) => r?.kill('SIGKILL')));
      await database?.drop();
    });

    /** Each token used twice on `replica`: its holder is then in that replica's cache. */
    const warm = (replica: ServiceProcess, of: { token: string }[]) =>
      inParallel([...of, ...of], 20, async ({ token }) =>
        expect((await replica.request('GET', '/auth/verify', { token })).status).toBe(200),
      );

    it(`moves ${MEMBERS} members in one batch through replica 1: not one of their marks sent to replica 2 lands in the old mess`, async () => {
      const movers = members.slice(0, MEMBERS);
      await warm(two, movers);
      const moved = await one.request('POST', '/messes/annex/members', {
        token: admin,
        body: { userIds: movers.map((m) => m.id) },
      });
      expect(moved.status).toBe(200);
      expect(moved.body.moved).toBe(MEMBERS);
      // From the acknowledgement on: every mover marks their Lunch through replica 2, at once.
      const statuses = await inParallel(movers, 50, async ({ token }) => {
        const res = await two.request('POST', '/attendance', {
          token,
          body: { date: today, mealType: 'Lunch', status: 'present' },
        });
        return res.status;
      });
      const ids = movers.map((m) => m.id);
      const where = await sql.query<{ mess_id: string; n: number }>(
        `select mess_id, count(*)::int as n from attendance where user_id = any($1::uuid[]) group by mess_id`,
        [ids],
      );
      const inMess = Object.fromEntries(where.rows.map((r) => [r.mess_id, r.n]));
      process.stdout.write(
        `batch move of ${MEMBERS}: marks through replica 2 ${JSON.stringify(countBy(statuses))}; ` +
          `stored in the old mess ${inMess[messA] ?? 0}, in the new ${inMess[messB] ?? 0}\n`,
      );
      expect(inMess[messA] ?? 0).toBe(0);
      expect(inMess[messB]).toBe(MEMBERS);
      expect(statuses).toEqual(movers.map(() => 201));
    });

    it(`demotes ${STAFF} managers one by one through replica 1: replica 2 accepts none of their staff actions after`, async () => {
      const staff = members.slice(MEMBERS, MEMBERS + STAFF);
      for (const m of staff)
        expect(
          (await one.request('PUT', `/users/${m.id}/role`, { token: admin, body: { role: 'manager' } }))
            .status,
        ).toBe(200);
      await warm(two, staff);
      // Each was a manager on replica 2 a moment ago: an expense is accepted from a manager.
      const before = await two.request('POST', '/expenses', {
        token: staff[0].token,
        body: { date: today, category: 'Groceries', description: 'Before the demotion', amount: 10 },
      });
      expect(before.status).toBe(201);
      await warm(two, staff);
      const after: number[] = [];
      for (const [n, m] of staff.entries()) {
        expect(
          (await one.request('PUT', `/users/${m.id}/role`, { token: admin, body: { role: 'student' } }))
            .status,
        ).toBe(200);
        const res = await two.request('POST', '/expenses', {
          token: m.token,
          body: { date: today, category: 'Groceries', description: `After demotion ${n}`, amount: 10 },
        });
        after.push(res.status);
      }
      const stored = await sql.query(`select 1 from expenses where description like 'After demotion %'`);
      process.stdout.write(
        `demotions: staff actions through replica 2 after each ${JSON.stringify(countBy(after))}\n`,
      );
      expect(stored.rowCount).toBe(0);
      expect(after).toEqual(staff.map(() => 403));
    });

    it(`logs ${STAFF} members out through replica 1: replica 2 accepts none of their requests after`, async () => {
      const leaving = members.slice(MEMBERS, MEMBERS + STAFF);
      await warm(two, leaving);
      const after: number[] = [];
      for (const m of leaving) {
        expect((await one.request('POST', '/auth/logout', { token: m.token })).status).toBe(200);
        after.push((await two.request('GET', '/attendance?limit=1', { token: m.token })).status);
      }
      process.stdout.write(
        `logouts: requests through replica 2 after each ${JSON.stringify(countBy(after))}\n`,
      );
      expect(after).toEqual(leaving.map(() => 401));
    });
  },
);

function countBy(values: number[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}
