import { Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { Outages } from '../../common/outages/outages';
import { AppConfig } from '../../config/app-config';
import { AllocationService } from './allocation.service';

/**
 * The term windows' schedule. The scheduler ticks every minute on every replica (MESS_WINDOWS_SCHEDULE_ENABLED):
 * each tick allocates every window whose `closesAt` has passed and makes the moves of every window whose
 * `effectiveFrom` has begun, so a service that was down then does it when it is back. Each happens once whichever
 * replicas tick: the allocation under the window's row lock, each move with its line's outcome recorded in the
 * move's transaction.
 */
@Injectable()
export class TermsSchedule {
  private readonly logger = new Logger('MessWindows');

  constructor(
    private readonly allocations: AllocationService,
    private readonly config: AppConfig,
    private readonly outages: Outages,
  ) {}

  @Cron(CronExpression.EVERY_MINUTE, { name: 'mess-windows' })
  async tick(): Promise<void> {
    if (!this.config.messWindowsScheduleEnabled) return;
    try {
      await this.allocations.runDue();
    } catch (error) {
      this.outages.jobFailed(
        error,
        'the term windows',
        this.logger,
        'Closing or applying a term window failed',
      );
    }
  }
}
