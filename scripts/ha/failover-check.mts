/**
 * The loss checker (issue 46): writers of acknowledged, idempotent writes through the service, faults injected into
 * the Patroni cluster of scripts/ha/cluster.sh, and after healing one final read. Run by `npm run ha:failover-check`
 * (which builds the service and brings the cluster up); its report goes to docs/reports/.
 *
 * Each write is logged as acknowledged (a 2xx), failed (a 4xx/5xx answer, after the retries an idempotent write gets)
 * or unknown (no answer in time, or the connection dropped). The final read gives:
 *   lost        acknowledged, and missing (or another value than the one acknowledged)
 *   unexpected  present, and never sent
 *   twice       a payment's Idempotency-Key recorded twice (a rupee twice), an expense's description twice
 * and the answers the service gave: a 500 is a failure of the check, so is a 2xx that says something else than was
 * asked (a wrong answer).
 *
 * Settings (environment): HA_DURATION_S (300), HA_FAULT_EVERY_S (30), HA_WRITERS (6), HA_FAULTS (a comma list of
 * kill9,sigstop,etcd,switchover, cycled), HA_CONTROL (none | async: the cluster in asynchronous replication with a
 * standby held back, so a failover loses commits | deleted: a row removed by hand before the final read),
 * HA_REPORT (the report's path, without extension), HA_DIR (/tmp/mess-ha).
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { percentile, root, Service, sleep } from './service.mts';

const HA_DIR = process.env.HA_DIR ?? '/tmp/mess-ha';
const CLUSTER = join(root, 'scripts', 'ha', 'cluster.sh');
const DURATION_S = Number(process.env.HA_DURATION_S ?? 300);
const FAULT_EVERY_S = Number(process.env.HA_FAULT_EVERY_S ?? 30);
const WRITERS = Number(process.env.HA_WRITERS ?? 6);
const FAULTS = (process.env.HA_FAULTS ?? 'kill9,sigstop,etcd,switchover').split(',') as FaultKind[];
const CONTROL = (process.env.HA_CONTROL ?? 'none') as 'none' | 'async' | 'deleted';
const REPORT = process.env.HA_REPORT ?? join(root, 'docs', 'reports', `failover-${CONTROL === 'none' ? 'run' : `control-${CONTROL}`}`);
const REQUEST_TIMEOUT_MS = 12_000;
const ADMIN = { email: 'admin@ha.local', password: 'ha-admin-password-1' };
const SERVICE_PORT = Number(process.env.HA_SERVICE_PORT ?? 3440);
const DIRECT = 'postgres://postgres@127.0.0.1:5440';
const MONTH = '2025-08';

type FaultKind = 'kill9' | 'sigstop' | 'etcd' | 'switchover';
type Kind = 'expense' | 'payment' | 'attendance';
type Outcome = 'acknowledged' | 'failed' | 'unknown';
interface Write {
  kind: Kind;
  id: string;
  sentAt: number;
  answeredAt?: number;
  outcome?: Outcome;
  attempts: number;
  statuses: number[];
  // When each attempt's answer (or its failure) came.
  answeredAts: number[];
  // What the final read must show for an acknowledged write.
  expect: Record<string, unknown>;
}
interface Fault {
  kind: FaultKind;
  at: number;
  target: string;
  healedAt?: number;
  waitedForHealthS?: number;
  recoveredS?: number;
  failuresInWindow?: number;
}

const t0 = Date.now();
const since = (t: number) => Math.round((t - t0) / 100) / 10;
const log = (...args: unknown[]) => console.log(`[${since(Date.now()).toFixed(1)} s]`, ...args);

/** cluster.sh without stopping the writers (the event loop goes on). */
async function shAsync(args: string[]): Promise<string> {
  return (await promisify(execFile)('bash', [CLUSTER, ...args], { encoding: 'utf8' })).stdout.trim();
}

function sh(args: string[], env: NodeJS.ProcessEnv = {}): string {
  return execFileSync('bash', [CLUSTER, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
}

// ---- the cluster -------------------------------------------------------------------------------------------------

async function leader(): Promise<string | undefined> {
  for (const i of [1, 2, 3]) {
    const res = await fetch(`http://127.0.0.1:844${i}/primary`, { signal: AbortSignal.timeout(1000) }).catch(() => undefined);
    if (res?.status === 200) return `pg${i}`;
  }
  return undefined;
}

async function etcdLeader(): Promise<number | undefined> {
  for (const i of [1, 2, 3]) {
    const res = await fetch(`http://127.0.0.1:2379${i}/v3/maintenance/status`, {
      method: 'POST',
      body: '{}',
      signal: AbortSignal.timeout(1000),
    }).catch(() => undefined);
    if (!res?.ok) continue;
    const status = (await res.json()) as { header: { member_id: string }; leader: string };
    if (status.header.member_id === status.leader) return i;
  }
  return undefined;
}

const pidOf = (file: string) => Number(readFileSync(file, 'utf8').split('\n')[0].trim());
const signal = (pid: number, sig: NodeJS.Signals) => {
  try {
    process.kill(pid, sig);
  } catch {
    /* already gone */
  }
};

/** Injects one fault; returns what it hit and how to heal it (undefined when the cluster heals by itself). */
async function inject(kind: FaultKind): Promise<{ target: string; heal?: () => Promise<void> }> {
  const l = await leader();
  if (!l) throw new Error('no leader to fault');
  const n = l.slice(2);
  switch (kind) {
    case 'kill9': {
      const pid = pidOf(join(HA_DIR, l, 'data', 'postmaster.pid'));
      signal(pid, 'SIGKILL');
      return { target: `${l}'s postmaster (pid ${pid})` };
    }
    case 'sigstop': {
      const pid = pidOf(join(HA_DIR, l, 'patroni.pid'));
      signal(pid, 'SIGSTOP');
      return {
        target: `${l}'s Patroni (pid ${pid})`,
        heal: async () => signal(pid, 'SIGCONT'),
      };
    }
    case 'etcd': {
      const member = (await etcdLeader()) ?? 1;
      const pid = pidOf(join(HA_DIR, `etcd${member}`, 'pid'));
      signal(pid, 'SIGTERM');
      return {
        target: `etcd member e${member}, the raft leader (pid ${pid})`,
        heal: async () => {
          for (let i = 0; i < 50; i += 1) {
            try {
              process.kill(pid, 0);
              await sleep(200);
            } catch {
              break;
            }
          }
          await shAsync(['etcd-start', String(member)]);
        },
      };
    }
    case 'switchover': {
      const res = await fetch(`http://127.0.0.1:844${n}/switchover`, {
        method: 'POST',
        body: JSON.stringify({ leader: l }),
        signal: AbortSignal.timeout(30_000),
      });
      return { target: `${l} (${res.status} ${(await res.text()).trim()})` };
    }
  }
}

// ---- the service ----------------------------------------------------------------------------------------------------

let service: Service | undefined;

// ---- the writers ------------------------------------------------------------------------------------------------------

const writes: Write[] = [];
const answers = new Map<number, number>(); // status → count (0: no answer)
let wrongAnswers: string[] = [];
let missingRetryAfter = 0;
let stopping = false;

const MEALS = ['Breakfast', 'Lunch', 'Dinner'];
const dayOf = (n: number) => {
  const d = new Date(Date.UTC(2024, 0, 1) + n * 86_400_000);
  return d.toISOString().slice(0, 10);
};

async function writer(w: number, token: string, members: string[]): Promise<void> {
  for (let i = 0; !stopping; i += 1) {
    const kind: Kind = (['expense', 'payment', 'attendance'] as const)[(i + w) % 3];
    const id = `w${w}-${i}`;
    const member = members[(i * 7 + w) % members.length];
    let request: { method: string; path: string; body: unknown; headers?: Record<string, string> };
    let expect: Record<string, unknown>;
    let idempotent = true;
    if (kind === 'expense') {
      const amount = 10 + (i % 90) + 0.25;
      request = { method: 'POST', path: '/expenses', body: { category: 'Groceries', amount, date: `${MONTH}-20`, description: id } };
      expect = { amount };
      idempotent = false; // a retry would record a second expense: a 503 or a timeout stays as it is
    } else if (kind === 'payment') {
      const amount = 100 + (i % 50);
      request = {
        method: 'POST',
        path: `/accounts/${member}/payments`,
        body: { amount, date: `${MONTH}-21`, method: 'cash', reference: id, note: `failover ${id}` },
        headers: { 'idempotency-key': `ha-${id}` },
      };
      expect = { amount, member };
    } else {
      // Each writer marks its own member (members[w]), a meal a write over two years: every slot is written once,
      // so the mark that stands is the one acknowledged.
      const slot = Math.floor(i / 3);
      const day = dayOf(Math.floor(slot / 3) % 730);
      const mealType = MEALS[slot % 3];
      const status = (slot + w) % 4 === 0 ? 'absent' : 'present';
      const who = members[w % members.length];
      request = { method: 'POST', path: '/attendance', body: { date: day, mealType, status, userId: who } };
      expect = { date: day, mealType, status, member: who };
    }
    const write: Write = { kind, id, sentAt: Date.now(), attempts: 0, statuses: [], answeredAts: [], expect };
    writes.push(write);
    // An idempotent write is retried (same key, same body) until it is answered, for up to 60 s, as a client would.
    for (const deadline = Date.now() + 60_000; ; ) {
      write.attempts += 1;
      let status = 0;
      let body: any;
      try {
        const res = await service!.http(request.method, request.path, { token, body: request.body, headers: request.headers });
        status = res.status;
        body = res.body;
        if (status === 503 && !res.retryAfter) missingRetryAfter += 1;
      } catch {
        status = 0;
      }
      write.statuses.push(status);
      write.answeredAts.push(Date.now());
      answers.set(status, (answers.get(status) ?? 0) + 1);
      if (status >= 200 && status < 300) {
        write.outcome = 'acknowledged';
        write.answeredAt = Date.now();
        const wrong = checkAnswer(write, body);
        if (wrong) wrongAnswers.push(wrong);
        break;
      }
      const retry = idempotent && (status === 503 || status === 0) && Date.now() < deadline && !stopping;
      if (!retry) {
        write.outcome = status === 0 ? 'unknown' : 'failed';
        write.answeredAt = Date.now();
        break;
      }
      await sleep(500);
    }
  }
}

function checkAnswer(write: Write, body: any): string | undefined {
  const e = write.expect;
  if (write.kind === 'expense' && (body?.expense?.description !== write.id || body?.expense?.amount !== e.amount))
    return `${write.id}: expense answered ${JSON.stringify(body).slice(0, 200)}`;
  if (write.kind === 'payment' && (body?.entry?.reference !== write.id || body?.entry?.amount !== e.amount))
    return `${write.id}: payment answered ${JSON.stringify(body).slice(0, 200)}`;
  if (write.kind === 'attendance') {
    const mark = body?.attendance ?? body?.mark ?? body;
    if (mark?.status !== e.status || mark?.date !== e.date || mark?.mealType !== e.mealType)
      return `${write.id}: mark answered ${JSON.stringify(body).slice(0, 200)}`;
  }
  return undefined;
}

// ---- the final read ------------------------------------------------------------------------------------------------

async function finalRead(token: string, members: string[]) {
  const expenses = new Map<string, { amount: number }[]>();
  for (let page = 1; ; page += 1) {
    const res = await service!.must('GET', `/expenses?startDate=${MONTH}-01&endDate=${MONTH}-31&limit=100&page=${page}`, { token });
    for (const e of res.body.expenses as { description: string; amount: number }[])
      expenses.set(e.description, [...(expenses.get(e.description) ?? []), { amount: e.amount }]);
    if (res.body.expenses.length < 100) break;
  }
  const payments = new Map<string, { amount: number; member: string }[]>();
  for (const member of members) {
    for (let page = 1; ; page += 1) {
      const res = await service!.must('GET', `/accounts/${member}?limit=100&page=${page}`, { token });
      for (const e of res.body.entries as { kind: string; reference: string | null; amount: number }[])
        if (e.kind === 'payment' && e.reference)
          payments.set(e.reference, [...(payments.get(e.reference) ?? []), { amount: e.amount, member }]);
      if (res.body.entries.length < 100) break;
    }
  }
  const marks = new Map<string, string>();
  const months = [...new Set(writes.filter((w) => w.kind === 'attendance').map((w) => String(w.expect.date).slice(0, 7)))];
  for (const month of months) {
    for (let page = 1; ; page += 1) {
      const res = await service!.must('GET', `/attendance?month=${month}&limit=500&page=${page}`, { token });
      const list = (res.body.attendance ?? res.body.marks ?? res.body.items) as any[];
      for (const m of list) marks.set(`${m.user?._id ?? m.userId}|${m.date}|${m.mealType}`, m.status);
      if (list.length < 500) break;
    }
  }
  return { expenses, payments, marks };
}

function judge(read: Awaited<ReturnType<typeof finalRead>>) {
  const lost: string[] = [];
  const twice: string[] = [];
  const sent = { expense: new Set<string>(), payment: new Set<string>(), attendance: new Set<string>() };
  // A mark's slot may be written by one writer only; its last acknowledged status is what must stand.
  for (const w of writes) {
    if (w.kind === 'expense') {
      sent.expense.add(w.id);
      const found = read.expenses.get(w.id) ?? [];
      if (found.length > 1) twice.push(`expense ${w.id} ×${found.length}`);
      if (w.outcome === 'acknowledged' && (found.length === 0 || found[0].amount !== w.expect.amount)) lost.push(`expense ${w.id}`);
    } else if (w.kind === 'payment') {
      sent.payment.add(w.id);
      const found = read.payments.get(w.id) ?? [];
      if (found.length > 1) twice.push(`payment ${w.id} ×${found.length}`);
      if (w.outcome === 'acknowledged' && (found.length === 0 || found[0].amount !== w.expect.amount)) lost.push(`payment ${w.id}`);
    } else {
      const slot = `${w.expect.member}|${w.expect.date}|${w.expect.mealType}`;
      sent.attendance.add(`${slot}|${w.expect.status}`);
      if (w.outcome === 'acknowledged' && read.marks.get(slot) !== w.expect.status) lost.push(`mark ${w.id} ${slot}`);
    }
  }
  const unexpected = [
    ...[...read.expenses.keys()].filter((d) => !sent.expense.has(d)).map((d) => `expense ${d}`),
    ...[...read.payments.keys()].filter((r) => !sent.payment.has(r)).map((r) => `payment ${r}`),
    ...[...read.marks].filter(([slot, status]) => !sent.attendance.has(`${slot}|${status}`)).map(([slot]) => `mark ${slot}`),
  ];
  return { lost, unexpected, twice };
}

// ---- the run ---------------------------------------------------------------------------------------------------------

async function main() {
  log(`bringing the cluster up (${CONTROL === 'async' ? 'asynchronous replication: the negative control' : 'synchronous_mode_strict'})`);
  sh(['up'], { HA_ASYNC: CONTROL === 'async' ? '1' : '0' });
  const database = 'mess_ha';
  const admin = new pg.Client({ connectionString: `${DIRECT}/postgres` });
  await admin.connect();
  await admin.query(`create database ${database}`);
  await admin.end();
  service = new Service(SERVICE_PORT, {
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    // Through pgbouncer (transaction mode) to HAProxy's primary; migrations and LISTEN straight to HAProxy.
    DATABASE_URL: `postgres://postgres@127.0.0.1:6440/${database}`,
    DATABASE_DIRECT_URL: `${DIRECT}/${database}`,
    DATABASE_POOL_MODE: 'transaction',
  });
  await service.start();
  const token = await service.login(ADMIN.email, ADMIN.password);
  const members = await service.setUpMess(token, Math.max(6, WRITERS));
  log(`service up on ${service.base}, ${members.length} members; ${WRITERS} writers for ${DURATION_S} s, a fault every ${FAULT_EVERY_S} s`);

  const running = Array.from({ length: WRITERS }, (_, w) => writer(w, token, members));
  const faults: Fault[] = [];
  const started = Date.now();
  let heldBack: number[] = [];
  for (let k = 0; ; k += 1) {
    const due = started + (k + 1) * FAULT_EVERY_S * 1000;
    if (due > started + DURATION_S * 1000 - 10_000) break;
    await sleep(Math.max(0, due - Date.now()));
    const waitStart = Date.now();
    // A fault hits a healed cluster: a leader, a synchronous standby, every member running.
    try {
      await shAsync(['healthy', '60']);
    } catch {
      log('the cluster is not healthy 60 s on; faulting it anyway');
    }
    const kind = CONTROL === 'async' ? 'sigstop' : FAULTS[k % FAULTS.length];
    if (CONTROL === 'async') {
      // 8 s of commits that only the primary has, then the primary goes.
      heldBack = holdBackStandbys();
      await sleep(8_000);
    }
    const at = Date.now();
    const { target, heal } = await inject(kind);
    if (CONTROL === 'async') {
      // The old primary's postmaster dies too, so no commit it took can reach a standby any more.
      const l = target.split("'")[0];
      signal(pidOf(join(HA_DIR, l, 'data', 'postmaster.pid')), 'SIGKILL');
      for (const pid of heldBack) signal(pid, 'SIGCONT');
    }
    const fault: Fault = { kind, at, target, waitedForHealthS: Math.round((at - waitStart) / 100) / 10 };
    faults.push(fault);
    log(`fault ${k + 1}: ${kind} of ${target}`);
    if (heal) {
      setTimeout(
        () =>
          void heal().then(() => {
            fault.healedAt = Date.now();
            log(`healed ${kind} of ${target}`);
          }),
        kind === 'sigstop' ? 22_000 : 15_000,
      );
    }
  }
  await sleep(Math.max(0, started + DURATION_S * 1000 - Date.now()));
  stopping = true;
  await Promise.all(running);
  log(`writers stopped: ${writes.length} writes`);
  await sleep(25_000); // the last heal
  sh(['healthy', '120']);

  if (CONTROL === 'deleted') {
    // The negative control by hand: one acknowledged expense removed, one never sent put in, behind the service.
    const victim = writes.find((w) => w.kind === 'expense' && w.outcome === 'acknowledged')!;
    const c = new pg.Client({ connectionString: `${DIRECT}/${database}` });
    await c.connect();
    await c.query('delete from expenses where description = $1', [victim.id]);
    await c.query(
      "insert into expenses (mess_id, category, amount_paise, date, description, recorded_by) select mess_id, category, amount_paise, date, 'never-sent', recorded_by from expenses limit 1",
    );
    await c.end();
    log(`removed the acknowledged expense ${victim.id} and put in one never sent, by hand`);
  }

  const read = await finalRead(token, members);
  const verdict = judge(read);
  const attempts = writes.flatMap((w) => w.statuses.map((status, k) => ({ status, at: w.answeredAts[k] })));
  for (const fault of faults) {
    const end = faults.find((f) => f.at > fault.at)?.at ?? started + DURATION_S * 1000;
    const inWindow = attempts.filter((a) => a.at >= fault.at && a.at < end);
    const failures = inWindow.filter((a) => a.status === 0 || a.status >= 500);
    fault.failuresInWindow = failures.length;
    // Writes accepted again: the first acknowledged answer after the last failed attempt of the window.
    const lastFailure = Math.max(...failures.map((a) => a.at));
    const next = inWindow.filter((a) => a.status >= 200 && a.status < 300 && a.at > lastFailure).sort((a, b) => a.at - b.at)[0];
    fault.recoveredS = failures.length === 0 ? 0 : next === undefined ? Infinity : Math.round((next.at - fault.at) / 100) / 10;
  }
  const recovered = faults.map((f) => f.recoveredS!);
  const count = (o: Outcome) => writes.filter((w) => w.outcome === o).length;
  const report = {
    control: CONTROL,
    replication: CONTROL === 'async' ? 'asynchronous' : 'synchronous_mode + synchronous_mode_strict',
    durationS: DURATION_S,
    writers: WRITERS,
    writes: writes.length,
    byKind: Object.fromEntries(['expense', 'payment', 'attendance'].map((k) => [k, writes.filter((w) => w.kind === k).length])),
    acknowledged: count('acknowledged'),
    failed: count('failed'),
    unknown: count('unknown'),
    retried: writes.filter((w) => w.attempts > 1).length,
    answers: Object.fromEntries([...answers].sort(([a], [b]) => a - b).map(([s, n]) => [s === 0 ? 'no answer' : String(s), n])),
    served500: answers.get(500) ?? 0,
    missingRetryAfter,
    wrongAnswers,
    lost: verdict.lost.length,
    unexpected: verdict.unexpected.length,
    twice: verdict.twice.length,
    lostSample: verdict.lost.slice(0, 10),
    unexpectedSample: verdict.unexpected.slice(0, 10),
    twiceSample: verdict.twice.slice(0, 10),
    faults: faults.map((f) => ({
      kind: f.kind,
      atS: since(f.at),
      target: f.target,
      recoveredS: f.recoveredS,
      failedAttempts: f.failuresInWindow,
      waitedForHealthS: f.waitedForHealthS,
    })),
    recoveredP95S: percentile(recovered, 95),
    recoveredMaxS: Math.max(...recovered),
  };
  mkdirSync(dirname(REPORT), { recursive: true });
  writeFileSync(`${REPORT}.json`, JSON.stringify(report, null, 2) + '\n');
  log(JSON.stringify({ ...report, faults: undefined }, null, 2));
  for (const f of report.faults) log(JSON.stringify(f));
  const passed =
    CONTROL === 'none'
      ? report.lost === 0 && report.unexpected === 0 && report.twice === 0 && report.served500 === 0 && wrongAnswers.length === 0 && report.recoveredMaxS <= 30
      : report.lost > 0 || report.unexpected > 0;
  log(passed ? 'PASSED' : 'FAILED', `report: ${REPORT}.json`);
  return passed;
}

/** The negative control's lag: the standbys' WAL receivers stopped, so the primary's commits stay its own. */
function holdBackStandbys(): number[] {
  const pids: number[] = [];
  for (const i of [1, 2, 3]) {
    let postmaster: number;
    try {
      postmaster = pidOf(join(HA_DIR, `pg${i}`, 'data', 'postmaster.pid'));
    } catch {
      continue;
    }
    const out = execFileSync('bash', ['-c', `pgrep -P ${postmaster} -f walreceiver || true`], { encoding: 'utf8' }).trim();
    if (out) pids.push(...out.split('\n').map(Number));
  }
  for (const pid of pids) signal(pid, 'SIGSTOP');
  return pids;
}

let exitCode = 1;
try {
  exitCode = (await main()) ? 0 : 1;
} catch (error) {
  console.error(error);
  console.error(service?.log.slice(-4000));
} finally {
  await service?.stop(join('/tmp', `mess-ha-service-${CONTROL}.log`));
  if (process.env.HA_KEEP !== '1') sh(['down']);
}
process.exit(exitCode);
