import { Injectable, Logger, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import type { Server } from 'node:net';
import { Clock } from '../../common/time/clock';
import { addDays, localParts, zonedInstant } from '../../common/time/dates';
import { AppConfig, IN_MEMORY } from '../../config/app-config';
import { Database } from '../database';
import { EmbeddedDatabase } from '../embedded-database';
import { listBackups, readManifest } from './backup-files';
import { serveControlSocket } from './control-socket';
import { type BackupReport, takeEmbeddedBackup } from './embedded-backup';

/**
 * The running service's backups of its embedded database: the ones `npm run backup` asks for through the control
 * socket, and the daily one (BACKUP_DAILY_AT, mess time). One at a time: a request during a backup waits for it and
 * then takes its own. Nothing on the server engine (its backups are pgBackRest's) or in memory.
 *
 * The schedule ticks each minute and takes a backup when none is newer than the last scheduled time: a restart
 * never takes two a day, and a day whose time passed while the service was down gets its backup when it is back.
 */
@Injectable()
export class EmbeddedBackups implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Backups');
  private socket?: Server;
  private running: Promise<unknown> = Promise.resolve();
  private lastFailedSlot?: number;

  constructor(
    private readonly database: Database,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  private get embedded(): EmbeddedDatabase | undefined {
    return this.database instanceof EmbeddedDatabase && this.config.dataDir !== IN_MEMORY
      ? this.database
      : undefined;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.embedded) return;
    this.socket = await serveControlSocket(this.config.dataDir, { backup: () => this.backup('asked') });
  }

  async onApplicationShutdown(): Promise<void> {
    await new Promise<void>((resolve) => (this.socket ? this.socket.close(() => resolve()) : resolve()));
  }

  /** Takes a backup now (after the one running, if any); its report. */
  backup(why: 'asked' | 'daily'): Promise<BackupReport> {
    const database = this.embedded;
    if (!database)
      return Promise.reject(new Error('the service keeps no embedded database on disk to back up'));
    const next = this.running.then(() =>
      takeEmbeddedBackup(database, { backupDir: this.config.backup.dir, keep: this.config.backup.keep }),
    );
    this.running = next.catch(() => undefined);
    return next.then((report) => {
      const { manifest } = report;
      this.logger.log(
        `Backup (${why}) ${report.path}: ${manifest.bytes} bytes, ${Object.keys(manifest.tables).length} tables ` +
          `verified; writers paused ${manifest.pauseMs} ms, ${report.totalMs} ms in all` +
          (report.removed.length ? `; removed ${report.removed.join(', ')}` : ''),
      );
      return report;
    });
  }

  @Cron(CronExpression.EVERY_MINUTE, { name: 'daily-backup' })
  async tick(): Promise<void> {
    const dailyAt = this.config.backup.dailyAt;
    if (!this.embedded || !dailyAt) return;
    const slot = lastScheduled(this.clock.now(), dailyAt, this.config.messTimezone).getTime();
    // A failed backup is not retried every minute until the next day's slot; it is logged once.
    if (this.lastFailedSlot === slot) return;
    const [newest] = await listBackups(this.config.backup.dir);
    const newestMoment = newest
      ? Date.parse((await readManifest(newest).catch(() => undefined))?.moment ?? '')
      : NaN;
    if (newestMoment >= slot) return;
    try {
      await this.backup('daily');
    } catch (error) {
      this.lastFailedSlot = slot;
      this.logger.error(`The daily backup failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** The latest instant at or before `now` that is `time` (HH:MM) in `timeZone`. */
export function lastScheduled(now: Date, time: string, timeZone: string): Date {
  const today = localParts(now, timeZone).date;
  const todays = zonedInstant(today, time, timeZone);
  return todays.getTime() <= now.getTime() ? todays : zonedInstant(addDays(today, -1), time, timeZone);
}

@Module({ providers: [EmbeddedBackups], exports: [EmbeddedBackups] })
export class EmbeddedBackupsModule {}
