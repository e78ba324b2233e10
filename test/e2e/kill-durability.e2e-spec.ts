import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN } from '../support/app';
import { databaseEnv, freshDatabase, type TestDatabase } from '../support/database';
import {
  buildIfStale,
  expenseDescriptions,
  registerMember,
  ServiceProcess,
  startWriters,
} from '../support/service-process';

/**
 * kill -9 under load: writers running, the process killed with SIGKILL (no shutdown hook runs), started again on the
 * same storage (the embedded engine's DATA_DIR, or the same server database), and every write that was answered 201
 * is there exactly once. Twice in a row, so the second start also recovers from an unclean stop.
 */
describe('kill -9 under load loses no acknowledged write', () => {
  let database: TestDatabase;
  let dataDir: string | undefined;
  let service: ServiceProcess;
  let token: string;

  beforeAll(async () => {
    await buildIfStale();
    database = await freshDatabase();
    if (!database.url) dataDir = mkdtempSync(join(tmpdir(), 'mess-kill9-'));
    service = await ServiceProcess.start(
      {
        ...(database.url ? databaseEnv(database) : { DATA_DIR: dataDir }),
        RATE_LIMIT_PER_MINUTE: '100000',
        LOGIN_RATE_LIMIT_PER_MINUTE: '10000',
        // Shown when a start fails: how far it got.
        LOG_LEVEL: 'info',
      },
      database.url ? 'service (server engine)' : 'service (embedded engine on disk)',
    );
    const admin = await service.login(ADMIN.email, ADMIN.password);
    token = (await registerMember(service, admin, 'treasurer', 1)).token;
  }, 300_000);

  afterAll(async () => {
    await service?.kill('SIGKILL');
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every answered write exactly once across two kills and restarts', async () => {
    const acknowledged = new Set<string>();
    for (let round = 0; round < 2; round += 1) {
      const writers = startWriters(() => [service], token, '2025-08-20', 8);
      const enough = acknowledged.size + 40;
      for (const started = Date.now(); writers.acknowledged.size < 40;) {
        if (Date.now() - started > 90_000)
          throw new Error(`only ${writers.acknowledged.size} writes in 90 s`);
        await new Promise((r) => setTimeout(r, 20));
      }
      // Writes are in flight at this moment: the kill cuts some of them, which then count as not acknowledged.
      const ended = await service.kill('SIGKILL');
      expect(ended.signal).toBe('SIGKILL');
      await writers.stop();
      for (const d of writers.acknowledged) acknowledged.add(d);
      expect(acknowledged.size).toBeGreaterThanOrEqual(enough);
      await service.restart();
      const counts = new Map<string, number>();
      for (const d of await expenseDescriptions(service, token, '2025-08'))
        counts.set(d, (counts.get(d) ?? 0) + 1);
      const lost = [...acknowledged].filter((d) => !counts.has(d));
      const duplicated = [...counts].filter(([, n]) => n > 1);
      expect({ round, lost, duplicated }).toEqual({ round, lost: [], duplicated: [] });
    }
  }, 600_000);
});
