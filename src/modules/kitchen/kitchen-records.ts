import { Injectable } from '@nestjs/common';
import { addDays, localParts, mealSpan } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import { AttendanceQueries } from '../attendance';
import { LeaveCalendar } from '../leave-calendar';
import { MealsService } from '../meals';
import { MessConfigService } from '../mess-config';
import { UsersService } from '../users';
import type { KitchenRecords } from './forecast-model';

/**
 * What the forecast reads of the mess, each through its owner's public service: the meal times, the diners as they
 * stand (with the day their account was made), the marks, the approved leave (as the meal slots it covers) and the
 * menus, between two dates.
 */
@Injectable()
export class KitchenRecordsReader {
  constructor(
    private readonly attendance: AttendanceQueries,
    private readonly leave: LeaveCalendar,
    private readonly meals: MealsService,
    private readonly messConfig: MessConfigService,
    private readonly users: UsersService,
    private readonly config: AppConfig,
  ) {}

  /**
   * The records from `first` to `last`: the present marks before `marksFrom` compactly (the history), and every
   * mark from `marksFrom` on (today's and later declarations; default none).
   */
  async read(first: string, last: string, marksFrom?: string): Promise<KitchenRecords> {
    const historyLast = marksFrom !== undefined && marksFrom <= last ? addDays(marksFrom, -1) : last;
    const zone = this.config.messTimezone;
    const { mealTimes } = await this.messConfig.settings();
    const ordered = [...mealTimes].sort((a, b) => a.startTime.localeCompare(b.startTime));
    const [diners, presence, marks, leaves, menus] = await Promise.all([
      this.users.dinersWithCreation(),
      historyLast >= first ? this.attendance.presentDaysByMember(first, historyLast) : Promise.resolve([]),
      marksFrom !== undefined && marksFrom <= last
        ? this.attendance.marksBetween(marksFrom > first ? marksFrom : first, last)
        : Promise.resolve([]),
      this.leave.approvedOverlapping(this.dayBegins(first), this.dayBegins(addDays(last, 1))),
      this.meals.menusBetween(first, last),
    ]);
    const leaveSlots: KitchenRecords['leaveSlots'][number][] = [];
    for (const leave of leaves) {
      const from = maxDate(first, localParts(leave.startsAt, zone).date);
      const to = minDate(last, localParts(leave.endsAt, zone).date);
      for (let date = from; date <= to; date = addDays(date, 1)) {
        for (const meal of ordered) {
          const start = mealSpan(date, meal, zone).start.getTime();
          if (leave.startsAt.getTime() <= start && start < leave.endsAt.getTime()) {
            leaveSlots.push({ userId: leave.userId, date, mealType: meal.name });
          }
        }
      }
    }
    return {
      mealTypes: ordered.map((m) => m.name),
      members: diners.map((d) => ({ id: d.id, since: localParts(d.createdAt, zone).date })),
      marks,
      presence: { from: first, rows: presence },
      leaveSlots,
      menus,
    };
  }

  /** The instant `date` begins (its midnight) in the mess's time zone. */
  dayBegins(date: string): Date {
    return mealSpan(date, { startTime: '00:00', endTime: '00:00' }, this.config.messTimezone).start;
  }

  /** Today in the mess's time zone. */
  today(now: Date): string {
    return localParts(now, this.config.messTimezone).date;
  }
}

const maxDate = (a: string, b: string) => (a > b ? a : b);
const minDate = (a: string, b: string) => (a < b ? a : b);
