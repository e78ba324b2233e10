import { PGlite } from '@electric-sql/pglite';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { type BackupManifest, readManifest } from '../../src/database/backup/backup-files';
import { digestTables } from '../../src/database/backup/table-digests';
import { ADMIN } from '../support/app';
import { buildIfStale, registerMember, ServiceProcess } from '../support/service-process';

/**
 * Must-show 1 of issue 46: `npm run backup` while writers keep writing (attendance marks, expenses, payments over
 * HTTP, each logged with when it was sent and when it was acknowledged), then `npm run restore` into another
 * directory, and a service started on it. The restored database is the source at the backup's moment: every write
 * acknowledged before the moment is there, none sent after it, and every table equals the backup's own digests.
 * The CLIs are the built ones (`dist/database/backup/*.cli.js`), run as `npm run backup` / `restore` run them.
 */
const root = join(__dirname, '..', '..');

interface Write {
  kind: 'expense' | 'attendance' | 'payment';
  key: string;
  sent: number;
  acknowledged?: number;
}

function runCli(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, 'dist', 'database', 'backup', script), ...args], {
      cwd: root,
      env: { PATH: process.env.PATH, TZ: 'UTC', NODE_ENV: 'test', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

/** Rows of the directory's database as the superuser sees them (every mess), opened in this process. */
async function readDatabase<T>(dataDir: string, read: (pg: PGlite) => Promise<T>): Promise<T> {
  const pg = await PGlite.create(join(dataDir, 'pgdata'));
  try {
    return await read(pg);
  } finally {
    await pg.close();
  }
}

describe('npm run backup / npm run restore on the embedded engine, under writers', () => {
  const secret = 'backup-e2e-secret-long-enough-for-hs256-0123456789';
  let dataDir: string;
  let restoredDir: string;
  let source: ServiceProcess;
  let restored: ServiceProcess | undefined;

  beforeAll(async () => {
    await buildIfStale();
    dataDir = mkdtempSync(join(tmpdir(), 'mess-backup-'));
    restoredDir = mkdtempSync(join(tmpdir(), 'mess-restored-'));
    source = await ServiceProcess.start(
      {
        DATA_DIR: dataDir,
        JWT_SECRET: secret,
        RATE_LIMIT_PER_MINUTE: '100000',
        LOGIN_RATE_LIMIT_PER_MINUTE: '10000',
      },
      'source service',
    );
  }, 300_000);

  afterAll(async () => {
    await source?.kill('SIGKILL');
    await restored?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(restoredDir, { recursive: true, force: true });
  });

  it('restores exactly the moment of the backup, and the restored directory starts', async () => {
    const admin = await source.login(ADMIN.email, ADMIN.password);
    const treasurer = await registerMember(source, admin, 'treasurer', 1);
    const students: { id: string }[] = [];
    for (let n = 2; n <= 4; n += 1) students.push(await registerMember(source, admin, 'student', n));

    const writes: Write[] = [];
    let stopping = false;
    const meals = ['Breakfast', 'Lunch', 'Dinner'];
    const attempt = async (write: Write, send: () => Promise<{ status: number }>) => {
      writes.push(write);
      const res = await send().catch(() => ({ status: 0 }));
      if (res.status === 201) write.acknowledged = Date.now();
    };
    const writer = async (kind: Write['kind'], w: number) => {
      for (let i = 0; !stopping; i += 1) {
        const key = `${kind}-${w}-${i}`;
        const sent = Date.now();
        if (kind === 'expense') {
          await attempt({ kind, key, sent }, () =>
            source.request('POST', '/expenses', {
              token: treasurer.token,
              body: { category: 'Groceries', amount: 10.25, date: '2025-06-01', description: key },
            }),
          );
        } else if (kind === 'payment') {
          const student = students[i % students.length];
          await attempt({ kind, key, sent }, () =>
            source.request('POST', `/accounts/${student.id}/payments`, {
              token: treasurer.token,
              body: { amount: 5, date: '2025-06-01', method: 'cash', reference: key },
              headers: { 'idempotency-key': key },
            }),
          );
        } else {
          // A new (member, date, meal) each time: the mark is a new row, keyed as the table keys it.
          const student = students[w];
          const day = new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 3) * 86_400_000)
            .toISOString()
            .slice(0, 10);
          const mealType = meals[i % 3];
          await attempt({ kind, key: `${student.id}|${day}|${mealType}`, sent }, () =>
            source.request('POST', '/attendance', {
              token: admin,
              body: { userId: student.id, date: day, mealType, status: 'present' },
            }),
          );
        }
      }
    };
    const running = [
      ...[0, 1].map((w) => writer('expense', w)),
      ...[0, 1].map((w) => writer('payment', w)),
      ...[0, 1, 2].map((w) => writer('attendance', w)),
    ];
    const acknowledgedOf = (kind: Write['kind'], after = 0) =>
      writes.filter((w) => w.kind === kind && w.acknowledged !== undefined && w.sent > after).length;
    const waitFor = async (what: string, enough: () => boolean) => {
      for (const started = Date.now(); !enough(); await new Promise((r) => setTimeout(r, 50)))
        if (Date.now() - started > 180_000) throw new Error(`waited 180 s for ${what}`);
    };
    await waitFor('writes before the backup', () =>
      (['expense', 'payment', 'attendance'] as const).every((k) => acknowledgedOf(k) >= 10),
    );

    const backupDir = join(dataDir, 'backups');
    const backup = await runCli('backup.cli.js', [], { DATA_DIR: dataDir, JWT_SECRET: secret });
    const backupEnded = Date.now();
    expect({ code: backup.code, output: backup.output }).toEqual({ code: 0, output: expect.any(String) });
    expect(backup.output).toContain('taken by the running service');
    const { path } = JSON.parse(backup.output.trim().split('\n').pop()!) as { path: string };
    const manifest: BackupManifest = await readManifest(path);
    const moment = Date.parse(manifest.moment);

    // Writers went on through the backup and after it.
    await waitFor('writes after the backup', () =>
      (['expense', 'payment', 'attendance'] as const).every((k) => acknowledgedOf(k, backupEnded) >= 5),
    );
    stopping = true;
    await Promise.all(running);
    await source.kill('SIGTERM');

    const restore = await runCli('restore.cli.js', [path, '--data-dir', restoredDir], { JWT_SECRET: secret });
    expect({ code: restore.code, output: restore.output }).toEqual({ code: 0, output: expect.any(String) });
    // A second restore into the same directory is refused without --force, and nothing there changes.
    const again = await runCli('restore.cli.js', [path, '--data-dir', restoredDir], { JWT_SECRET: secret });
    expect(again.code).toBe(1);
    expect(again.output).toContain('is not empty');

    const found = await readDatabase(restoredDir, async (pg) => ({
      digests: await digestTables(pg),
      expense: new Set(
        (await pg.query<{ k: string }>('select description as k from expenses')).rows.map((r) => r.k),
      ),
      payment: new Set(
        (
          await pg.query<{ k: string }>("select reference as k from account_entries where kind = 'payment'")
        ).rows.map((r) => r.k),
      ),
      attendance: new Set(
        (
          await pg.query<{ k: string }>(
            "select user_id || '|' || to_char(date, 'YYYY-MM-DD') || '|' || meal_type as k from attendance",
          )
        ).rows.map((r) => r.k),
      ),
    }));
    // Every table of the restored directory is what the backup's own verification recorded (the restore CLI ran
    // the migrations, which had nothing to apply, and the service has not touched it yet).
    expect(found.digests).toEqual(manifest.tables);

    // The source itself, read after its service stopped: what the same checker says of a copy that is not the moment.
    const sourceAtEnd = await readDatabase(
      dataDir,
      async (pg) =>
        new Set(
          (await pg.query<{ k: string }>('select description as k from expenses')).rows.map((r) => r.k),
        ),
    );
    const acknowledgedBefore = writes.filter((w) => w.acknowledged !== undefined && w.acknowledged < moment);
    const sentAfter = writes.filter((w) => w.sent > moment);
    const lost = acknowledgedBefore.filter((w) => !found[w.kind].has(w.key)).map((w) => w.key);
    const fromTheFuture = sentAfter.filter((w) => found[w.kind].has(w.key)).map((w) => w.key);
    const unknown = [...found.expense].filter(
      (k) => !writes.some((w) => w.kind === 'expense' && w.key === k),
    );
    expect({ lost, fromTheFuture, unknown }).toEqual({ lost: [], fromTheFuture: [], unknown: [] });
    // The test saw both sides of the moment, in each kind of write.
    for (const kind of ['expense', 'payment', 'attendance'] as const) {
      expect(acknowledgedBefore.filter((w) => w.kind === kind).length).toBeGreaterThanOrEqual(10);
      expect(sentAfter.filter((w) => w.kind === kind && w.acknowledged).length).toBeGreaterThanOrEqual(5);
    }
    // Negative control: the checker sees rows from after the moment when they are there (the source at its end).
    expect(sentAfter.filter((w) => w.kind === 'expense' && sourceAtEnd.has(w.key)).length).toBeGreaterThan(0);

    // Negative control of the restore's own comparison: a manifest whose digest of one table is not the file's.
    const tamperedDir = mkdtempSync(join(tmpdir(), 'mess-tampered-'));
    try {
      const tampered = join(tamperedDir, basename(path));
      copyFileSync(path, tampered);
      const digests = { ...manifest.tables };
      digests['public.expenses'] = { ...digests['public.expenses'], sha256: '0'.repeat(64) };
      writeFileSync(`${tampered}.json`, JSON.stringify({ ...manifest, tables: digests }));
      const refused = await runCli('restore.cli.js', [tampered, '--data-dir', join(tamperedDir, 'data')], {
        JWT_SECRET: secret,
      });
      expect(refused.code).toBe(1);
      expect(refused.output).toContain('1 table(s) differ from the backup');
      expect(refused.output).toContain('public.expenses');
    } finally {
      rmSync(tamperedDir, { recursive: true, force: true });
    }

    // The restored directory starts, and serves what it holds.
    // With BACKUP_DAILY_AT at a time already passed today and no backup yet, its first tick takes the daily one.
    restored = await ServiceProcess.start(
      { DATA_DIR: restoredDir, JWT_SECRET: secret, BACKUP_DAILY_AT: '00:00' },
      'restored service',
    );
    const token = await restored.login(treasurer.email, treasurer.password);
    const listed = await restored.request(
      'GET',
      '/expenses?startDate=2025-06-01&endDate=2025-06-01&limit=1',
      {
        token,
      },
    );
    expect(listed.status).toBe(200);
    expect(listed.body.pagination.total).toBe(found.expense.size);
    const dailyDir = join(restoredDir, 'backups');
    await waitFor(
      'the daily backup',
      () => existsSync(dailyDir) && readdirSync(dailyDir).some((f) => f.endsWith('.json')),
    );
    const [daily] = readdirSync(dailyDir).filter((f) => f.endsWith('.tar.gz'));
    expect(readdirSync(dailyDir).sort()).toEqual([daily, `${daily}.json`]);
    expect((await readManifest(join(dailyDir, daily))).verified).toBeDefined();

    // With no service on the source directory, the command opens it itself; BACKUP_KEEP=1 keeps that one only.
    const offline = await runCli('backup.cli.js', [], {
      DATA_DIR: dataDir,
      JWT_SECRET: secret,
      BACKUP_KEEP: '1',
    });
    expect({ code: offline.code, output: offline.output }).toEqual({ code: 0, output: expect.any(String) });
    expect(offline.output).toContain('taken by this process (no service runs on the data directory)');
    expect(offline.output).toContain(`removed (BACKUP_KEEP=1): ${basename(path)}`);
    console.log(
      `backup under writers: ${writes.length} writes sent, ${acknowledgedBefore.length} acknowledged before the ` +
        `moment, ${sentAfter.length} sent after; ${manifest.bytes} bytes; writers paused ${manifest.pauseMs} ms; ` +
        `restore verified in ${manifest.verified?.restoreMs} ms; backup dir ${backupDir}`,
    );
  }, 600_000);
});
