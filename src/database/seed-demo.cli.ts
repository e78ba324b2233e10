// `npm run seed:demo -- --members 2000 --months 12`: replaces the configured database's content with a demo year.
// The embedded database allows one process at a time: stop the service first.
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/app-config';
import { localParts } from '../common/time/dates';
import { openForBulkLoad } from './open-database';
import { seedDemo } from './seed-demo';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { members: { type: 'string', default: '2000' }, months: { type: 'string', default: '12' } },
  });
  const members = Number(values.members);
  const months = Number(values.months);
  if (!Number.isInteger(members) || members < 4 || members > 100_000)
    throw new Error('--members must be 4..100000');
  if (!Number.isInteger(months) || months < 1 || months > 60) throw new Error('--months must be 1..60');
  const config = loadConfig();
  const today = localParts(new Date(), config.messTimezone).date;
  // As the tables' owner (the load truncates and drops indexes, which the service's role may not): DATABASE_MIGRATION_URL's
  // login when the service's owns nothing; migrated first, with a statement timeout a bulk load does not outlast.
  const database = await openForBulkLoad({
    databaseUrl: config.migrationUrl ?? config.databaseUrl,
    dataDir: config.dataDir,
  });
  try {
    const summary = await seedDemo(database, { members, months, lastMonth: today.slice(0, 7), today });
    console.log(
      `Seeded ${summary.from}..${summary.to} in ${(summary.milliseconds / 1000).toFixed(1)} s: ${summary.users} users, ` +
        `${summary.attendance} attendance marks, ${summary.meals} menus, ${summary.expenses} expenses, ${summary.feedback} feedback.`,
    );
    console.log(
      `Log in as ${summary.adminEmail} / ${summary.adminPassword}; members member00001@mess.local … / ${summary.memberPassword}.`,
    );
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
