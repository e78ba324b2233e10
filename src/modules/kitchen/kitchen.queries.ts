import { Injectable } from '@nestjs/common';
import { monthBounds } from '../../common/time/dates';
import { AttendanceQueries } from '../attendance';
import { KitchenRepository } from './kitchen.repository';
import { perDinerGrams } from './waste.service';

/** The read-only view of the kitchen the university's view uses: a few grouped reads across messes. */
@Injectable()
export class KitchenQueries {
  constructor(
    private readonly repository: KitchenRepository,
    private readonly attendance: AttendanceQueries,
  ) {}

  /** Each mess's stored forecast of a date, summed over its meals; messes with none stored are absent. */
  expectedPlatesPerMess(date: string): Promise<Map<string, number>> {
    return this.repository.expectedPlatesPerMess(date);
  }

  /**
   * Each mess's leftover grams per diner of a `YYYY-MM` month: its recorded leftovers ÷ the present marks of the
   * meals with a record (as `GET /kitchen/waste` computes it, from the counts kept with the records: a record from
   * before they were kept is counted here); messes with no record are absent, null when nobody was present at them.
   */
  async leftoverPerDinerPerMess(month: string): Promise<Map<string, number | null>> {
    const { first, last } = monthBounds(month);
    // Summed per mess in the database (50 rows, not a row per record).
    const totals = await this.repository.wasteSumsEveryMess(first, last);
    const sums = new Map(totals.map((t) => [t.messId, { grams: t.grams, diners: t.present }]));
    if (totals.some((t) => t.uncounted > 0)) {
      const uncounted = await this.repository.uncountedWasteEveryMess(first, last);
      for (const slot of await this.attendance.presentAtSlotsEveryMess(uncounted))
        sums.get(slot.messId)!.diners += slot.present;
    }
    return new Map([...sums].map(([messId, s]) => [messId, perDinerGrams(s.grams, s.diners)]));
  }
}
