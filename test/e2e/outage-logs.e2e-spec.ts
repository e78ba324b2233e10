import { SchedulerRegistry } from '@nestjs/schedule';
import { TestApp, messSetup } from '../support/app';
import { usingServer } from '../support/database';
import { captureLogs, type LogLine } from '../support/logs';
import { appBehindProxy, type TcpProxy } from '../support/tcp-proxy';

/**
 * What an operator reads when the database goes away for 20 s, silent (a partition) or refusing: one warning when
 * it goes, one line when it is back with how long it was gone, nothing at error level, no SQL text; meanwhile
 * requests, readiness probes, the job queue and every scheduled job keep failing and are only counted.
 * (Per-request access lines are the request log's, not counted here.)
 */
const run = usingServer() ? it : it.skip;
const OUTAGE_MS = 20_000;

describe('Logs an operator can trust during a database outage', () => {
  let t: TestApp | undefined;
  let proxy: TcpProxy | undefined;
  let admin: string;
  const logs = captureLogs();

  beforeAll(async () => {
    if (!usingServer()) return;
    ({ app: t, proxy } = await appBehindProxy({
      DB_STATEMENT_TIMEOUT_MS: '1500',
      DB_QUERY_TIMEOUT_MS: '2000',
      DB_CONNECTION_TIMEOUT_MS: '2000',
      READY_TIMEOUT_MS: '1000',
    }));
    admin = await t.adminToken();
    expect((await t.post('/auth/admin/setup', messSetup(), { token: admin })).status).toBe(200);
  }, 90_000);
  afterAll(async () => {
    logs.restore();
    proxy?.resume();
    await proxy?.forward();
    await t?.close();
    await proxy?.close();
  });

  /** Requests and readiness probes, as clients and Kubernetes would send them, for the length of the outage. */
  async function trafficFor(ms: number): Promise<number> {
    let answered = 0;
    const until = Date.now() + ms;
    const client = async () => {
      while (Date.now() < until) {
        await t!.get('/expenses', { token: admin });
        answered += 1;
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    const probe = async () => {
      while (Date.now() < until) {
        await t!.get('/ready');
        answered += 1;
        await new Promise((r) => setTimeout(r, 1000));
      }
    };
    // Every scheduled job runs once mid-outage, as its cron would (the weekly menu runs every 5 min, so a 20 s
    // outage would otherwise cross it only now and then): each must count as the outage, not log an error.
    const jobs = t!.app.get(SchedulerRegistry).getCronJobs();
    expect([...jobs.keys()].sort()).toEqual([
      'daily-backup',
      'gateway-events',
      'kitchen-forecast',
      'meal-rotation',
      'mess-windows',
      'notifications',
      'outbox',
    ]);
    const scheduled = async () => {
      await new Promise((r) => setTimeout(r, ms / 2));
      for (const job of jobs.values()) void job.fireOnTick();
    };
    await Promise.all([client(), client(), probe(), scheduled()]);
    return answered;
  }

  async function backWithin(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (logs.of('Outages').some((l) => l.message.startsWith('The database is back'))) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`no "back" line within ${ms} ms:\n${logs.all()}`);
  }

  const byLevel = (lines: LogLine[]) =>
    lines.reduce<Record<string, number>>(
      (counts, l) => ({ ...counts, [l.level]: (counts[l.level] ?? 0) + 1 }),
      {},
    );

  for (const [kind, takeAway, giveBack] of [
    ['silent', (p: TcpProxy) => p.pause(), (p: TcpProxy) => p.resume()],
    ['refusing', (p: TcpProxy) => p.refuse(), (p: TcpProxy) => p.forward()],
  ] as const) {
    run(
      `a ${OUTAGE_MS / 1000} s ${kind} database: one warning, one line when back, nothing at error level, no SQL`,
      async () => {
        logs.clear();
        await takeAway(proxy!);
        const answered = await trafficFor(OUTAGE_MS);
        await giveBack(proxy!);
        await backWithin(10_000);
        const lines = [...logs.lines];
        const outageLines = lines.filter((l) => l.context === 'Outages');
        console.log(
          `${kind}: ${answered} requests and probes answered; lines by level ${JSON.stringify(byLevel(lines))}:\n` +
            lines.map((l) => `  ${l.level} [${l.context}] ${l.message}`).join('\n'),
        );
        expect(answered).toBeGreaterThan(20);
        expect(outageLines.map((l) => [l.level, l.message.replace(/[\d.]+ s$/, 'N s')])).toEqual([
          ['warn', expect.stringMatching(/^The database is unavailable: /)],
          ['log', 'The database is back after N s'],
        ]);
        expect(lines.filter((l) => l.level === 'error')).toEqual([]);
        expect(lines.filter((l) => l.context !== 'Outages' && l.level === 'warn')).toEqual([]);
        for (const line of lines) expect(line.text).not.toMatch(/Failed query|select |insert into|update "/i);
        expect((await t!.get('/ready')).status).toBe(200);
      },
      90_000,
    );
  }
});
