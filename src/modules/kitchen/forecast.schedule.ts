import { Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { Outages } from '../../common/outages/outages';
import { inEveryMess } from '../../common/tenancy/every-mess';
import { Clock } from '../../common/time/clock';
import { addDays } from '../../common/time/dates';
import { MessDirectory } from '../messes';
import { ForecastService } from './forecast.service';
import { KitchenRecordsReader } from './kitchen-records';

/**
 * Tomorrow's forecast of every mess, made every hour and stored, so the university's view shows each mess's
 * expected plates without forecasting every mess on each request (and the number a manager sees is as fresh); and
 * each mess's model fitted from the days before today kept, so a forecast request reads only its own dates.
 */
@Injectable()
export class ForecastSchedule {
  private readonly logger = new Logger('ForecastSchedule');

  constructor(
    private readonly forecasts: ForecastService,
    private readonly records: KitchenRecordsReader,
    private readonly directory: MessDirectory,
    private readonly clock: Clock,
    private readonly outages: Outages,
  ) {}

  @Cron(CronExpression.EVERY_HOUR, { name: 'kitchen-forecast' })
  async tick(): Promise<void> {
    try {
      await this.forecastTomorrow();
    } catch (error) {
      this.outages.jobFailed(
        error,
        "tomorrow's kitchen forecast",
        this.logger,
        'Forecasting tomorrow failed',
      );
    }
  }

  /**
   * Forecasts and stores tomorrow's meals in every mess; returns how many messes were forecast (a mess whose
   * forecast failed is reported and skipped until the next hour).
   */
  async forecastTomorrow(): Promise<number> {
    const tomorrow = addDays(this.records.today(this.clock.now()), 1);
    const forecast = await inEveryMess(
      (await this.directory.labels()).keys(),
      "tomorrow's kitchen forecast",
      async () => {
        // Fitted again each hour (the kept model is replaced), then tomorrow forecast from it.
        await this.forecasts.refit();
        await this.forecasts.forecast({ from: tomorrow, to: tomorrow });
      },
      { outages: this.outages, logger: this.logger, message: 'Forecasting tomorrow failed in a mess' },
    );
    return forecast.size;
  }
}
