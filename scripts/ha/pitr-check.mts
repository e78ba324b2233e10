/**
 * Point-in-time recovery of the server engine with pgBackRest (issue 46), end to end on one machine:
 *
 *   1. a PostgreSQL 15 server (127.0.0.1:5444, data under PITR_DIR, /tmp/mess-pitr) archiving its WAL with
 *      `pgbackrest archive-push`; a demo year seeded in it (`seed:demo`, PITR_MEMBERS 2000 × PITR_MONTHS 12);
 *   2. the service on it, and writers through the service (expenses; payments with their Idempotency-Key), each
 *      write logged with the moment it was sent and the moment its 201 came back;
 *   3. while they write: a full backup, more writes, an incremental backup, more writes; T, a moment in the middle
 *      of the writing; more writes; the WAL archived (`pgbackrest check`);
 *   4. a restore of the backup set to T into a new data directory (`pgbackrest restore --type=time --target=T`),
 *      started on 127.0.0.1:5445 and recovered until it promotes, timed;
 *   5. the check, on the restored database: every write acknowledged before T is there, none sent after T is; a
 *      write in flight at T may be either. Then a second restore to the end of the archive (`--type=default`) as the
 *      negative control: there the writes after T are present, so the check's "none after T" must fail.
 *
 * Run as root (each server and pgbackrest runs as the postgres user): `npm run backup:server-pitr`. Its report:
 * docs/reports/pitr-run.json (PITR_REPORT). Uses /usr/lib/postgresql/15/bin and Debian's pgbackrest 2.45.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, chownSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { root, Service, sleep } from './service.mts';

const DIR = process.env.PITR_DIR ?? '/tmp/mess-pitr';
const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
const MEMBERS = process.env.PITR_MEMBERS ?? '2000';
const MONTHS = process.env.PITR_MONTHS ?? '12';
const WRITERS = Number(process.env.PITR_WRITERS ?? 4);
const REPORT = process.env.PITR_REPORT ?? join(root, 'docs', 'reports', 'pitr-run');
const PORT = 5444;
const RESTORED_PORT = 5445;
const CONFIG = join(DIR, 'pgbackrest.conf');
const DB = 'mess';
const t0 = Date.now();
const log = (...args: unknown[]) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)} s]`, ...args);

const postgresIds = () => ({
  uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
  gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
});

/** A command as the postgres user; its output. */
function asPostgres(command: string, args: string[], options: { quiet?: boolean } = {}): string {
  return execFileSync('setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', command, ...args], {
    encoding: 'utf8',
    cwd: DIR,
    env: { ...process.env, HOME: DIR },
    stdio: ['ignore', 'pipe', options.quiet ? 'pipe' : 'inherit'],
  });
}

const pgbackrest = (...args: string[]) => asPostgres('pgbackrest', [`--config=${CONFIG}`, '--stanza=mess', ...args]);

function timed<T>(what: () => T): { value: T; seconds: number } {
  const started = Date.now();
  const value = what();
  return { value, seconds: Math.round((Date.now() - started) / 100) / 10 };
}

async function waitForServer(port: number, primary: boolean, deadlineS = 1800): Promise<void> {
  for (const started = Date.now(); ; await sleep(200)) {
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
    try {
      await client.connect();
      const { rows } = await client.query<{ r: boolean }>('select pg_is_in_recovery() as r');
      if (!primary || !rows[0].r) return;
    } catch {
      /* starting */
    } finally {
      await client.end().catch(() => undefined);
    }
    if (Date.now() - started > deadlineS * 1000) throw new Error(`the server on ${port} did not come up`);
  }
}

function stopServer(dataDir: string): void {
  if (existsSync(join(dataDir, 'postmaster.pid'))) asPostgres(join(PG_BIN, 'pg_ctl'), ['-D', dataDir, '-m', 'fast', '-w', 'stop'], { quiet: true });
}

function tearDown(): void {
  for (const d of ['pg', 'restored', 'latest']) {
    try {
      stopServer(join(DIR, d));
    } catch {
      /* not running */
    }
  }
  rmSync(DIR, { recursive: true, force: true });
}

interface Write {
  kind: 'expense' | 'payment';
  id: string;
  sentAt: number;
  ackAt?: number;
}

async function main(): Promise<Record<string, unknown>> {
  tearDown();
  mkdirSync(join(DIR, 'repo'), { recursive: true });
  mkdirSync(join(DIR, 'log'));
  const { uid, gid } = postgresIds();
  writeFileSync(
    CONFIG,
    [
      '[global]',
      `repo1-path=${DIR}/repo`,
      'repo1-retention-full=2',
      `log-path=${DIR}/log`,
      `lock-path=${DIR}/lock`,
      'log-level-console=warn',
      'log-level-file=info',
      'compress-type=zst',
      'process-max=2',
      'start-fast=y',
      '',
      '[mess]',
      `pg1-path=${DIR}/pg`,
      `pg1-port=${PORT}`,
      `pg1-socket-path=${DIR}`,
      '',
    ].join('\n'),
  );
  for (const path of [DIR, join(DIR, 'repo'), join(DIR, 'log'), CONFIG]) chownSync(path, uid, gid);

  // 1. The server, archiving.
  asPostgres(join(PG_BIN, 'initdb'), ['-D', join(DIR, 'pg'), '-U', 'postgres', '--auth=trust', '--data-checksums', '-E', 'UTF8'], { quiet: true });
  const settings = [
    `port = ${PORT}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${DIR}'`,
    'shared_buffers = 64MB',
    'max_connections = 60',
    'wal_level = replica',
    'archive_mode = on',
    `archive_command = 'pgbackrest --config=${CONFIG} --stanza=mess archive-push %p'`,
    'archive_timeout = 60',
    'max_wal_size = 1GB',
  ];
  writeFileSync(join(DIR, 'pg', 'postgresql.auto.conf'), settings.join('\n') + '\n');
  chownSync(join(DIR, 'pg', 'postgresql.auto.conf'), uid, gid);
  asPostgres(join(PG_BIN, 'pg_ctl'), ['-D', join(DIR, 'pg'), '-l', join(DIR, 'pg.log'), '-w', 'start'], { quiet: true });
  await waitForServer(PORT, true);
  pgbackrest('stanza-create');
  const url = `postgres://postgres@127.0.0.1:${PORT}/${DB}`;
  const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${PORT}/postgres` });
  await admin.connect();
  await admin.query(`create database ${DB}`);
  await admin.end();

  log(`seeding a demo year (${MEMBERS} members × ${MONTHS} months)`);
  const seed = timed(() =>
    execFileSync(process.execPath, [join(root, 'dist', 'database', 'seed-demo.cli.js'), '--members', MEMBERS, '--months', MONTHS], {
      cwd: root,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, TZ: 'UTC', DATABASE_URL: url, LOG_LEVEL: 'warn' },
    }),
  );
  const seeded = seed.value.split('\n').find((line) => line.startsWith('Seeded')) ?? '';
  log(seeded);
  const size = await (async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const { rows } = await c.query<{ bytes: string }>('select pg_database_size(current_database()) as bytes');
    await c.end();
    return Number(rows[0].bytes);
  })();

  // 2. The service and its writers.
  const service = new Service(3445, { DATABASE_URL: url });
  await service.start();
  const token = await service.login('admin@mess.local', 'demo-admin-password');
  const accounts = await service.must('GET', '/accounts?limit=20', { token });
  const members = (accounts.body.accounts ?? accounts.body.items ?? []).map((a: { userId: { _id: string } }) => a.userId._id) as string[];
  if (!members.length) throw new Error(`no members to pay for: ${JSON.stringify(accounts.body).slice(0, 300)}`);
  const today = new Date().toISOString().slice(0, 10);
  const writes: Write[] = [];
  let stopping = false;
  const writer = async (w: number) => {
    for (let i = 0; !stopping; i += 1) {
      const kind = (i + w) % 2 === 0 ? 'expense' : 'payment';
      const id = `pitr-w${w}-${i}`;
      const write: Write = { kind, id, sentAt: Date.now() };
      writes.push(write);
      const res = await (kind === 'expense'
        ? service.http('POST', '/expenses', { token, body: { category: 'Groceries', amount: 12.5, date: today, description: id } })
        : service.http('POST', `/accounts/${members[i % members.length]}/payments`, {
            token,
            body: { amount: 250, date: today, method: 'upi', reference: id },
            headers: { 'idempotency-key': id },
          })
      ).catch(() => undefined);
      if (res?.status === 201) write.ackAt = Date.now();
      await sleep(20);
    }
  };
  const running = Array.from({ length: WRITERS }, (_, w) => writer(w));

  // 3. Backups while they write; T in the middle.
  await sleep(5_000);
  log('full backup, the writers writing');
  const full = timed(() => pgbackrest('--type=full', 'backup'));
  await sleep(5_000);
  log('incremental backup');
  const incr = timed(() => pgbackrest('--type=incr', 'backup'));
  await sleep(8_000);
  const T = new Date();
  log(`T = ${T.toISOString()}`);
  await sleep(8_000);
  stopping = true;
  await Promise.all(running);
  await service.stop('/tmp/mess-pitr-service.log');
  pgbackrest('check'); // switches the WAL segment and waits until it is archived
  const info = JSON.parse(pgbackrest('info', '--output=json'))[0];
  log(`writes: ${writes.length}, acknowledged ${writes.filter((w) => w.ackAt).length}`);

  // 4. The restore to T (the server is stopped first: the disk is gone, say).
  stopServer(join(DIR, 'pg'));
  const restore = async (dir: string, port: number, target: string[]) => {
    mkdirSync(dir);
    chownSync(dir, uid, gid);
    execFileSync('chmod', ['700', dir]);
    const files = timed(() => pgbackrest(`--pg1-path=${dir}`, ...target, 'restore'));
    const conf = join(dir, 'postgresql.auto.conf');
    writeFileSync(conf, readFileSync(conf, 'utf8').replace(/^port = .*$/m, `port = ${port}`).replace(/^archive_mode = on$/m, 'archive_mode = off'));
    const started = Date.now();
    asPostgres(join(PG_BIN, 'pg_ctl'), ['-D', dir, '-l', `${dir}.log`, 'start'], { quiet: true });
    await waitForServer(port, true);
    return { restoreS: files.seconds, recoveryS: Math.round((Date.now() - started) / 100) / 10 };
  };
  const target = T.toISOString().replace('T', ' ').replace('Z', '+00');
  log(`restoring to ${target}`);
  const toT = await restore(join(DIR, 'restored'), RESTORED_PORT, ['--type=time', `--target=${target}`, '--target-action=promote']);
  log(`restored in ${toT.restoreS} s, recovered to T and promoted in ${toT.recoveryS} s`);

  // 5. The check.
  const judge = async (port: number) => {
    const c = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/${DB}` });
    await c.connect();
    const expenses = (await c.query<{ d: string }>("select description as d from expenses where description like 'pitr-%'")).rows.map((r) => r.d);
    const payments = (await c.query<{ r: string }>("select reference as r from account_entries where reference like 'pitr-%'")).rows.map((r) => r.r);
    await c.end();
    const present = new Map<string, number>();
    for (const id of [...expenses, ...payments]) present.set(id, (present.get(id) ?? 0) + 1);
    const beforeT = writes.filter((w) => w.ackAt !== undefined && w.ackAt < T.getTime());
    const afterT = writes.filter((w) => w.sentAt > T.getTime());
    const sent = new Set(writes.map((w) => w.id));
    return {
      acknowledgedBeforeT: beforeT.length,
      sentAfterT: afterT.length,
      inFlightAtT: writes.length - beforeT.length - afterT.length - writes.filter((w) => w.ackAt === undefined && w.sentAt <= T.getTime()).length,
      missingBeforeT: beforeT.filter((w) => !present.has(w.id)).map((w) => w.id),
      presentAfterT: afterT.filter((w) => present.has(w.id)).map((w) => w.id).length,
      twice: [...present].filter(([, n]) => n > 1).map(([id]) => id),
      neverSent: [...present.keys()].filter((id) => !sent.has(id)),
    };
  };
  const atT = await judge(RESTORED_PORT);
  stopServer(join(DIR, 'restored'));
  const passed = atT.missingBeforeT.length === 0 && atT.presentAfterT === 0 && atT.twice.length === 0 && atT.neverSent.length === 0;
  log(`at T: ${JSON.stringify({ ...atT, missingBeforeT: atT.missingBeforeT.length })}`);

  // The negative control: the end of the archive has the writes after T, and the same check sees them.
  const toEnd = await restore(join(DIR, 'latest'), RESTORED_PORT, ['--type=default']);
  const atEnd = await judge(RESTORED_PORT);
  stopServer(join(DIR, 'latest'));
  const controlDetects = atEnd.presentAfterT > 0;
  log(`negative control (restored to the end of the archive): ${atEnd.presentAfterT} writes sent after T present`);

  const backups = (info.backup as { type: string; info: { size: number; delta: number; repository: { size: number; delta: number } }; timestamp: { start: number; stop: number } }[]).map(
    (b) => ({ type: b.type, databaseBytes: b.info.size, copiedBytes: b.info.delta, repositoryBytes: b.info.repository.delta, seconds: b.timestamp.stop - b.timestamp.start }),
  );
  return {
    passed: passed && controlDetects,
    seeded,
    seedS: seed.seconds,
    databaseBytes: size,
    writers: WRITERS,
    writes: writes.length,
    acknowledged: writes.filter((w) => w.ackAt).length,
    fullBackupS: full.seconds,
    incrementalBackupS: incr.seconds,
    backups,
    T: T.toISOString(),
    restoreToT: toT,
    checkAtT: { ...atT, missingBeforeT: atT.missingBeforeT.slice(0, 10), missingCount: atT.missingBeforeT.length },
    negativeControl: { restore: toEnd, presentAfterT: atEnd.presentAfterT, detected: controlDetects },
  };
}

let code = 1;
try {
  const report = await main();
  mkdirSync(dirname(REPORT), { recursive: true });
  writeFileSync(`${REPORT}.json`, JSON.stringify(report, null, 2) + '\n');
  log(JSON.stringify(report, null, 2));
  log(report.passed ? 'PASSED' : 'FAILED', `report: ${REPORT}.json`);
  code = report.passed ? 0 : 1;
} catch (error) {
  console.error(error);
} finally {
  if (process.env.PITR_KEEP !== '1') tearDown();
}
process.exit(code);
