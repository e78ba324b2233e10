// `npm run backup`: a verified backup of the embedded database into BACKUP_DIR. When the service runs on DATA_DIR it
// takes the backup (it holds the database; writers go on), asked through its control socket; when none runs, this
// process opens the directory itself. The server engine's backups are pgBackRest's (docs/operations.md).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../config/app-config';
import { openEmbeddedDatabase } from '../embedded-database';
import { askService } from './control-socket';
import { type BackupReport, takeEmbeddedBackup } from './embedded-backup';

async function main(): Promise<void> {
  const config = loadConfig();
  if (config.databaseUrl)
    throw new Error(
      'npm run backup is for the embedded engine; DATABASE_URL names a server: back it up with pgBackRest ' +
        '(docs/operations.md)',
    );
  const asked = await askService(config.dataDir, 'backup');
  let report: BackupReport;
  let by: string;
  if (asked) {
    report = asked.result as BackupReport;
    by = 'the running service';
  } else {
    // Opening a directory without a database would make an empty one, and back that up.
    const pgdata = resolve(config.dataDir, 'pgdata');
    if (!existsSync(join(pgdata, 'PG_VERSION')))
      throw new Error(
        `no embedded database at ${pgdata} (DATA_DIR=${config.dataDir}), and no service answers there`,
      );
    const database = await openEmbeddedDatabase({ dataDir: config.dataDir });
    try {
      report = await takeEmbeddedBackup(database, { backupDir: config.backup.dir, keep: config.backup.keep });
    } finally {
      await database.close();
    }
    by = 'this process (no service runs on the data directory)';
  }
  const { manifest } = report;
  const rows = Object.values(manifest.tables).reduce((sum, t) => sum + t.rows, 0);
  console.log(
    `Backup ${report.path}\n  taken by ${by} at ${manifest.moment}\n  ${manifest.bytes} bytes, sha256 ` +
      `${manifest.sha256}\n  ${Object.keys(manifest.tables).length} tables, ${rows} rows, verified by a restore ` +
      `(${manifest.verified?.restoreMs} ms)\n  writers paused ${manifest.pauseMs} ms; ${report.totalMs} ms in all` +
      (report.removed.length
        ? `\n  removed (BACKUP_KEEP=${config.backup.keep}): ${report.removed.join(', ')}`
        : ''),
  );
  console.log(JSON.stringify({ path: report.path, moment: manifest.moment, pauseMs: manifest.pauseMs }));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
