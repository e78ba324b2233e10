import { Injectable } from '@nestjs/common';
import { OnDomainEvent } from '../../common/events/domain-event-bus';
import type { AttendanceEvent } from '../../common/events/event-map';
import { WasteService } from './waste.service';

/**
 * Keeps the present marks stored with a meal's waste record true when a mark of that meal changes after it was
 * recorded (a late scan, a correction): the meal is counted again. A mark that leaves the meal's present count as it
 * was (absent made, absent kept) changes nothing. (Bulk marks publish one event per mark as well.)
 */
@Injectable()
export class WasteCountListener {
  constructor(private readonly waste: WasteService) {}

  @OnDomainEvent('attendance.marked')
  async onMarked(event: AttendanceEvent): Promise<void> {
    const wasPresent = event.previousStatus === 'present';
    if (wasPresent === (event.status === 'present')) return;
    await this.waste.recount(event.date, event.mealType);
  }
}
