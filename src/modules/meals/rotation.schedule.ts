import { Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { Outages } from '../../common/outages/outages';
import { inEveryMess } from '../../common/tenancy/every-mess';
import { Clock } from '../../common/time/clock';
import { RotationService } from './rotation.service';

/**
 * The daily publishing of the weekly menu. The scheduler ticks every few minutes on every replica; each tick
 * publishes, in every mess with a rotation, the whole window from today (so the day coming into it is published
 * soon after midnight, and days missed while the service was down are caught up). Each slot is published once: the
 * menus' unique key turns a second insert into nothing.
 */
@Injectable()
export class RotationSchedule {
  private readonly logger = new Logger('RotationSchedule');

  constructor(
    private readonly rotation: RotationService,
    private readonly clock: Clock,
    private readonly outages: Outages,
  ) {}

  @Cron(CronExpression.EVERY_5_MINUTES, { name: 'meal-rotation' })
  async tick(): Promise<void> {
    try {
      await this.publishDue(this.clock.now());
    } catch (error) {
      this.outages.jobFailed(
        error,
        'the weekly menu schedule',
        this.logger,
        'Publishing the weekly menu failed',
      );
    }
  }

  /**
   * Publishes every mess's window at `now`; returns how many menus were published, added over the messes (a mess
   * whose publishing failed is reported and tried again at the next tick).
   */
  async publishDue(now: Date = this.clock.now()): Promise<number> {
    const published = await inEveryMess(
      await this.rotation.messesWithRotation(),
      'the weekly menu schedule',
      async (messId) => {
        const n = await this.rotation.publishWindow(now);
        if (n) this.logger.log({ messId, published: n }, 'Weekly menu published');
        return n;
      },
      { outages: this.outages, logger: this.logger, message: 'Publishing the weekly menu failed in a mess' },
    );
    return [...published.values()].reduce((sum, n) => sum + n, 0);
  }
}
