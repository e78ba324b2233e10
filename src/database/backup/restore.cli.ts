// `npm run restore -- <file> [--data-dir DIR] [--force]`: restores a backup of the embedded database into DIR
// (default DATA_DIR). Checks the file's sha256 against its manifest, refuses a non-empty pgdata/ unless --force
// (which moves it aside), compares every table with the backup's moment, and opens the result as the service would
// (applying this version's migrations when the backup is older). Stop the service on DIR first.
import { parseArgs } from 'node:util';
import { loadConfig } from '../../config/app-config';
import { restoreEmbeddedBackup } from './embedded-backup';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { 'data-dir': { type: 'string' }, force: { type: 'boolean', default: false } },
  });
  if (positionals.length !== 1)
    throw new Error('usage: npm run restore -- <backup file> [--data-dir DIR] [--force]');
  const config = loadConfig();
  if (config.databaseUrl && !values['data-dir'])
    throw new Error(
      'npm run restore is for the embedded engine; DATABASE_URL names a server (pgBackRest restores it)',
    );
  const dataDir = values['data-dir'] ?? config.dataDir;
  const report = await restoreEmbeddedBackup({ file: positionals[0], dataDir, force: values.force });
  console.log(
    `Restored ${positionals[0]} into ${report.pgdata}\n  the moment ${report.moment}: ${report.tables} tables, ` +
      `${report.rows} rows, each equal to the backup's\n  opened and migrated (migrations ${report.migrations.before} ` +
      `→ ${report.migrations.after}) in ${report.restoreMs} ms` +
      (report.replaced
        ? `\n  the directory that was there is now ${report.replaced} (remove it when done)`
        : ''),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
