import { Injectable } from '@nestjs/common';
import { OnDomainEvent } from '../../common/events/domain-event-bus';
import type {
  AttendanceBulkEvent,
  AttendanceEvent,
  LeaveEvent,
  MealEvent,
  MemberEvent,
} from '../../common/events/event-map';
import { Clock } from '../../common/time/clock';
import { ForecastService } from './forecast.service';
import { KitchenRecordsReader } from './kitchen-records';

/**
 * Marks the mess's kept forecasting model out of date when a record it was fitted from changes: a mark, a menu or a
 * leave of a date before today, or a member's standing. (Marks and menus of today and later are read by every
 * forecast itself; a member joining or leaving also shows as other members than the model's.) The next forecast
 * answers from it and fits it again in the background.
 */
@Injectable()
export class ForecastModelListener {
  constructor(
    private readonly forecasts: ForecastService,
    private readonly records: KitchenRecordsReader,
    private readonly clock: Clock,
  ) {}

  @OnDomainEvent('attendance.marked')
  onMarked(event: AttendanceEvent): Promise<void> {
    return this.changedIfPast(event.date);
  }

  @OnDomainEvent('attendance.marked-in-bulk')
  onMarkedInBulk(event: AttendanceBulkEvent): Promise<void> {
    return this.changedIfPast(event.date);
  }

  @OnDomainEvent('meal.published')
  onMenuPublished(event: MealEvent): Promise<void> {
    return this.changedIfPast(event.date);
  }

  @OnDomainEvent('meal.changed')
  onMenuChanged(event: MealEvent): Promise<void> {
    return this.changedIfPast(event.date);
  }

  @OnDomainEvent('meal.deleted')
  onMenuDeleted(event: MealEvent): Promise<void> {
    return this.changedIfPast(event.date);
  }

  @OnDomainEvent('leave.decided')
  onLeave(event: LeaveEvent): Promise<void> {
    return this.changedIfPast(event.startDate);
  }

  @OnDomainEvent('member.changed')
  onMember(_event: MemberEvent): Promise<void> {
    return this.forecasts.changed();
  }

  private async changedIfPast(date: string): Promise<void> {
    if (date < this.records.today(this.clock.now())) await this.forecasts.changed();
  }
}
