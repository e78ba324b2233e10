import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import {
  BackupChecksumError,
  type BackupManifest,
  backupFileName,
  checkedManifest,
  listBackups,
  manifestPath,
  removeLeftovers,
  removeOldBackups,
  sha256OfFile,
} from './backup-files';

describe('backup files', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'mess-backup-files-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A backup of `day` (2026-11-<day>): the file, and its manifest when `verified` is not null. */
  async function backup(day: number, verified: boolean | null = true): Promise<string> {
    const moment = new Date(Date.UTC(2026, 10, day, 3, 30));
    const file = join(dir, backupFileName(moment));
    writeFileSync(file, `backup of day ${day}`);
    if (verified !== null) {
      const manifest: Partial<BackupManifest> = {
        moment: moment.toISOString(),
        sha256: await sha256OfFile(file),
        tables: {},
        ...(verified ? { verified: { at: moment.toISOString(), restoreMs: 1 } } : {}),
      };
      writeFileSync(manifestPath(file), JSON.stringify(manifest));
    }
    return file;
  }

  it('names a backup by its moment, so that names sort by age', () => {
    expect(backupFileName(new Date('2026-12-02T04:45:20.123Z'))).toBe(
      'mess-backup-2026-12-02T04-45-20-123Z.tar.gz',
    );
  });

  it('keeps the BACKUP_KEEP newest verified backups and removes the older ones with their manifests', async () => {
    for (let day = 1; day <= 9; day += 1) await backup(day);
    writeFileSync(join(dir, 'notes.txt'), 'not a backup');
    const removed = await removeOldBackups(dir, 7);
    expect(removed).toEqual([
      backupFileName(new Date(Date.UTC(2026, 10, 2, 3, 30))),
      backupFileName(new Date(Date.UTC(2026, 10, 1, 3, 30))),
    ]);
    expect((await listBackups(dir)).length).toBe(7);
    expect(readdirSync(dir).filter((f) => f.endsWith('.json')).length).toBe(7);
    expect(readdirSync(dir)).toContain('notes.txt');
  });

  it('counts only verified backups; an unverified one is removed once a newer verified one exists', async () => {
    await backup(1);
    await backup(2, false); // failed verification (a crash left its manifest unfinished)
    await backup(3, null); // no manifest at all
    await backup(4);
    await backup(5, null); // newer than every verified one: maybe being verified now
    const removed = await removeOldBackups(dir, 2);
    expect(removed.sort()).toEqual(
      [2, 3].map((day) => backupFileName(new Date(Date.UTC(2026, 10, day, 3, 30)))).sort(),
    );
    expect((await listBackups(dir)).map((f) => f.slice(-30))).toHaveLength(3);
  });

  it('removes what a cut-short backup left once it is old, and nothing else', async () => {
    const file = await backup(1);
    mkdirSync(join(dir, '.snapshot-abc', 'pgdata'), { recursive: true });
    mkdirSync(join(dir, '.verify-def'));
    writeFileSync(join(dir, 'mess-backup-x.tar.gz.partial'), '');
    const now = Date.now();
    expect(await removeLeftovers(dir, 3600_000, now)).toEqual([]);
    expect((await removeLeftovers(dir, 3600_000, now + 2 * 3600_000)).sort()).toEqual([
      '.snapshot-abc',
      '.verify-def',
      'mess-backup-x.tar.gz.partial',
    ]);
    expect(readdirSync(dir).sort()).toEqual([basename(file), `${basename(file)}.json`]);
  });

  it('refuses a file whose sha256 is not its manifest’s, and one without a manifest', async () => {
    const good = await backup(1);
    await expect(checkedManifest(good)).resolves.toMatchObject({ moment: '2026-11-01T03:30:00.000Z' });
    writeFileSync(good, 'backup of day 1, damaged');
    await expect(checkedManifest(good)).rejects.toThrow(BackupChecksumError);
    await expect(checkedManifest(good)).rejects.toThrow(/its manifest says/);
    const bare = await backup(2, null);
    await expect(checkedManifest(bare)).rejects.toThrow(/no manifest/);
  });
});
