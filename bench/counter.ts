// The counter and leave sections of `npm run bench` (issue 11's figures): the kitchen's headcount for today with a
// tenth of the members on leave, members fetching their meal passes, and the counter's scanners at a dinner rush.
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { CurrentMember } from '../src/common/auth/auth.decorators';
import { FIRST_MESS_ID, inMess } from '../src/common/tenancy/mess-scope';
import { localParts } from '../src/common/time/dates';
import { rowsOf, type DemoSummary } from '../src/database/seed-demo';
import { CounterService } from '../src/modules/attendance/counter.service';
import type { LoadRequest } from './client-worker';
import { type Backends, cpuPerRequest, HttpClient, login, type LoadStats, type Stats } from './support';

const TIME_ZONE = 'Asia/Kolkata';
/** Members on leave today for the headcount: a tenth of the seeded members. */
const ON_LEAVE_SHARE = 0.1;
/** Scanners at the counter and members fetching passes at once. */
export const SCANNERS = 50;
/** Mean pause of a scanner between two scans (a plate served); of a member between two pass fetches. */
export const THINK_MS = 1000;
const PASS_HOLDERS = 50;
const PASS_FETCHES_EACH = 10;
const SCANNED_MEMBERS = 500;
const HEADCOUNT_RUNS = 60;

export interface CounterResult {
  members: number;
  onLeave: number;
  /** Uncached: the month's cache cleared before each request. */
  headcount: Stats;
  pass: LoadStats;
  /** First plates: each pass scanned once (201). */
  scanFirst: LoadStats;
  /** Second plates: the same passes again (200, `repeat: true`). */
  scanRepeat: LoadStats;
  /** CPU per first-plate scan, ms: this process (service and HTTP client; the database too on the embedded engine), the database's backends (server). */
  cpuPerScan?: { process: number; database?: number };
  /** Why the counter part did not run (too close to midnight for a meal window spanning now). */
  skipped?: string;
}

interface Context {
  app: NestFastifyApplication;
  base: string;
  query: (text: string) => Promise<unknown>;
  seed: DemoSummary;
  clearCache: () => void;
  /** The database's server processes (the server engine), for the CPU per scan. */
  backends?: Backends;
}

export async function benchCounter({ app, base, query, seed, clearCache, backends }: Context): Promise<CounterResult> {
  const now = new Date();
  const { date: today, time } = localParts(now, TIME_ZONE);
  const manager = {
    authorization: `Bearer ${await login(base, 'member00001@mess.local', seed.memberPassword)}`,
  };
  const admin = { authorization: `Bearer ${await login(base, seed.adminEmail, seed.adminPassword)}` };
  const members = rowsOf<{ id: string; email: string; full_name: string }>(
    await query(`select id, email, full_name from users
      where status = 'approved' and role = 'student' and dines order by email`),
  );

  // A tenth of the members on approved leave covering today; the rest marked for breakfast (85 %, 80 % present).
  const away = members.filter((_, i) => i % Math.round(1 / ON_LEAVE_SHARE) === 5);
  await query(`insert into leaves (user_id, start_date, end_date, start_meal_type, end_meal_type, starts_at, ends_at,
      days, status, requested_by, decided_by, decided_at)
    select u.id, current_date - 1, current_date + 2, 'Breakfast', 'Dinner', now() - interval '1 day',
      now() + interval '2 days', 4, 'approved', u.id, u.id, now()
    from users u where u.id = any('{${away.map((m) => m.id).join(',')}}'::uuid[])`);
  await query(`insert into attendance (user_id, date, meal_type, status, source, marked_by)
    select u.id, '${today}', 'Breakfast', case when random() < 0.94 then 'present' else 'absent' end, 'member', u.id
    from users u where u.status = 'approved' and u.dines and random() < 0.85
      and not (u.id = any('{${away.map((m) => m.id).join(',')}}'::uuid[]))`);
  await query('analyze leaves');

  const client = new HttpClient(clearCache);
  const headcount = await client.measure(
    `${base}/analytics/headcount?date=${today}`,
    manager,
    HEADCOUNT_RUNS,
    true,
  );

  const [hours, minutes] = time.split(':').map(Number);
  const minute = hours * 60 + minutes;
  const empty: LoadStats = { p50: 0, p95: 0, p99: 0, max: 0, count: 0, perSecond: 0, statuses: {} };
  const result = { members: members.length, onLeave: away.length, headcount };
  if (minute < 15 || minute > 23 * 60) {
    await client.close();
    const skipped = `run at ${time} ${TIME_ZONE}: no meal window of an hour spans now on today's date`;
    return { ...result, pass: empty, scanFirst: empty, scanRepeat: empty, skipped };
  }

  // A meal that is being served now: "Counter", from 10 minutes ago to an hour ahead.
  const hhmm = (m: number) =>
    `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
  const current = (await (await fetch(`${base}/auth/admin/config`, { headers: admin })).json()) as {
    config: Record<string, unknown> & { mealTimes: { name: string; startTime: string; endTime: string }[] };
  };
  const keep = ['messName', 'description', 'email', 'phone', 'expenseCategories', 'monthlyBudget'];
  const body: Record<string, unknown> = Object.fromEntries(
    keep
      .filter((k) => current.config[k] !== null && current.config[k] !== undefined)
      .map((k) => [k, current.config[k]]),
  );
  body.mealTimes = [
    ...current.config.mealTimes,
    { name: 'Counter', startTime: hhmm(minute - 10), endTime: hhmm(Math.min(minute + 60, 23 * 60 + 59)) },
  ];
  const put = await fetch(`${base}/auth/admin/config`, {
    method: 'PUT',
    headers: { ...admin, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (put.status !== 200) throw new Error(`config: ${put.status} ${await put.text()}`);
  // Its menu is published, as at a real dinner (a meal served without one raises a discrepancy alert per slot).
  const menu = await fetch(`${base}/meals`, {
    method: 'POST',
    headers: { ...manager, 'content-type': 'application/json' },
    body: JSON.stringify({ date: today, mealType: 'Counter', dishes: ['Dal', 'Rice', 'Roti'] }),
  });
  if (menu.status !== 201) throw new Error(`menu: ${menu.status} ${await menu.text()}`);
  // The menu went out to every member before the rush (MEAL_UPDATE, ~2,000 notifications through the delivery
  // worker): measured after it, as at a real dinner, not while it is being sent.
  const { meal } = (await menu.json()) as { meal: { _id: string } };
  const mealId = meal._id;
  await settled(query, mealId, members.length);

  // Members fetching their passes: 50 of them at once, 10 fetches each.
  const holders = members.filter((m) => !away.includes(m)).slice(0, PASS_HOLDERS);
  const tokens = await Promise.all(holders.map((m) => login(base, m.email, seed.memberPassword)));
  const passRequests: LoadRequest[] = [];
  for (let round = 0; round < PASS_FETCHES_EACH; round += 1) {
    for (const token of tokens) {
      passRequests.push({
        method: 'GET',
        url: `${base}/attendance/pass?date=${today}&mealType=Counter`,
        headers: { authorization: `Bearer ${token}` },
      });
    }
  }
  const pass = await client.load({ requests: passRequests, concurrency: SCANNERS, thinkMs: THINK_MS });

  // The rush: 500 members' passes (issued by the service: the members' logins are not what is measured), scanned by
  // 50 scanners, then each again (a second plate).
  const counter = app.get(CounterService);
  const scanned = members.filter((m) => !away.includes(m)).slice(0, SCANNED_MEMBERS);
  const passes: string[] = [];
  for (const m of scanned) {
    // One at a time: 500 at once would queue past the pool's checkout deadline.
    const member = {
      id: m.id,
      email: m.email,
      fullName: m.full_name,
      role: 'student',
      messId: FIRST_MESS_ID,
    } as CurrentMember;
    // Issued in the seeded mess, as a request of the member would be (no mess, no statement: decision 0008).
    const issued = await inMess(FIRST_MESS_ID, () =>
      counter.issuePass(member, { date: today, mealType: 'Counter' }),
    );
    passes.push(issued.pass);
  }
  const scanOf = (p: string): LoadRequest => ({
    method: 'POST',
    url: `${base}/attendance/scan`,
    headers: { ...manager, 'content-type': 'application/json' },
    body: JSON.stringify({ pass: p }),
  });
  const { result: scanFirst, cpuPerRequest: cpuPerScan } = await cpuPerRequest(
    backends,
    () => client.load({ requests: passes.map(scanOf), concurrency: SCANNERS, thinkMs: THINK_MS }),
    (done) => done.count,
  );
  const scanRepeat = await client.load({
    requests: passes.map(scanOf),
    concurrency: SCANNERS,
    thinkMs: THINK_MS,
  });
  await client.close();
  if (scanFirst.statuses['201'] !== passes.length || scanRepeat.statuses['200'] !== passes.length) {
    throw new Error(
      `scans: first ${JSON.stringify(scanFirst.statuses)}, repeat ${JSON.stringify(scanRepeat.statuses)}`,
    );
  }
  if (pass.statuses['200'] !== passRequests.length)
    throw new Error(`passes: ${JSON.stringify(pass.statuses)}`);
  return { ...result, pass, scanFirst, scanRepeat, cpuPerScan };
}

/** The report's section. */
export function counterReport(c: CounterResult): string[] {
  const verdict = (ok: boolean) => (ok ? 'met' : 'missed');
  const row = (name: string, s: LoadStats, target: number | undefined) =>
    `| ${name} | ${s.count} | ${s.perSecond} | ${s.p50} / ${s.p95} / ${s.p99} (max ${s.max}) | ${target ? `≤ ${target}` : ''} | ${target ? verdict(s.p95 <= target) : ''} |`;
  const lines = [
    '### Leave and the counter',
    '',
    `Headcount for today (\`GET /api/analytics/headcount\`, cache cleared before each of ${HEADCOUNT_RUNS} requests), ${c.members} diners of whom ${c.onLeave} on approved leave: p50 ${c.headcount.p50} ms, p95 ${c.headcount.p95} ms (target ≤ 20: ${verdict(c.headcount.p95 <= 20)}).`,
    '',
  ];
  if (c.skipped) return [...lines, `Counter not measured: ${c.skipped}.`, ''];
  lines.push(
    `${SCANNERS} concurrent users, each pausing ${THINK_MS / 2}–${(THINK_MS * 3) / 2} ms between two requests (a dinner rush is 500 scans in 5 minutes, ~1.7 a second; this offers ~${Math.round((SCANNERS * 1000) / THINK_MS)} a second).`,
    '',
    '| measure | requests | answered / s | p50 / p95 / p99 ms | target p95 | |',
    '|---|---|---|---|---|---|',
    row(
      `\`GET /api/attendance/pass\` (${PASS_HOLDERS} members, ${PASS_FETCHES_EACH} each; signed pass + SVG QR)`,
      c.pass,
      10,
    ),
    row('`POST /api/attendance/scan`, first plates (201)', c.scanFirst, 15),
    row('`POST /api/attendance/scan`, second plates (200, `repeat: true`)', c.scanRepeat, 15),
    '',
    ...(c.cpuPerScan
      ? [
          `CPU per first-plate scan: ${c.cpuPerScan.process} ms in the bench process (the service and the HTTP client's worker${c.cpuPerScan.database === undefined ? ', and the embedded database' : ''})${c.cpuPerScan.database === undefined ? '' : `, ${c.cpuPerScan.database} ms in the database's backends`}.`,
          '',
        ]
      : []),
  );
  return lines;
}

/**
 * Waits until the menu's MEAL_UPDATE went out: the fan-out (queued after the menu's response, in batches) has created
 * one per diner, and none waits for delivery (at most two minutes).
 */
async function settled(query: Context['query'], mealId: string, diners: number): Promise<void> {
  for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
    const [{ created, waiting }] = rowsOf<{ created: number; waiting: number }>(
      await query(`select count(*) filter (where dedupe_key like 'MEAL_UPDATE:${mealId}:%')::int as created,
          count(*) filter (where status in ('queued', 'retrying'))::int as waiting
        from notifications`),
    );
    if (created >= diners && waiting === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error("the menu's MEAL_UPDATE notifications were not all created and delivered within 2 minutes");
}
