// `npm run db:migrate`: applies the committed migrations to the configured database and exits.
import { loadConfig } from '../config/app-config';
import { openDatabase } from './open-database';

async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await database.migrate();
    console.log('Migrations applied.');
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
