// `npm run db:migrate`: applies the committed migrations to the configured database and exits. With
// DATABASE_MIGRATION_URL, as that login (the owner), which also installs the job queue's schema and grants what
// DATABASE_URL's login needs: a Kubernetes init container's step before the service starts without it (decision 0012).
import { loadConfig } from '../config/app-config';
import { openDatabase } from './open-database';

async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    directUrl: config.directUrl,
    migrationUrl: config.migrationUrl,
    dataDir: config.dataDir,
  });
  try {
    await database.migrate();
    console.log("Migrations applied (or, when DATABASE_URL's login owns nothing and DATABASE_MIGRATION_URL is unset, found applied).");
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
