import { Injectable } from '@nestjs/common';
import type { CurrentMember } from '../../common/auth/auth.decorators';
import { badRequest, conflict, type FieldError } from '../../common/errors/api-error';
import { Clock } from '../../common/time/clock';
import { isCalendarDate, localParts, mealSpan, monthBounds, monthOf } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import { AttendanceQueries } from '../attendance';
import { AuditTrail } from '../audit-trail';
import { type MealTime, MessConfigService } from '../mess-config';
import { UsersService } from '../users';
import { MEAL_NOT_STARTED } from './kitchen.errors';
import { KitchenRepository } from './kitchen.repository';
import type { WasteRow } from './kitchen.schema';

export interface WasteInput {
  preparedPlates?: number;
  /** Grams (the edge's kilograms × 1000, exact for three decimals). */
  leftoverGrams: number;
  note?: string;
}

/** Leftovers of some meals, and the grams per diner: leftover grams ÷ the present marks of those meals. */
export interface WasteFigures {
  leftoverGrams: number;
  perDinerGrams: number | null;
}

export interface WasteMonth {
  month: string;
  entries: WasteRow[];
  names: ReadonlyMap<string, string>;
  summary: WasteFigures & { byMealType: Record<string, WasteFigures> };
}

/** Grams per diner, rounded to the gram; null when nobody was marked present at the meals recorded. */
export const perDinerGrams = (grams: number, diners: number): number | null =>
  diners > 0 ? Math.round(grams / diners) : null;

/** The waste log: one record per meal, written (or replaced) with its audit row; the month's summary. */
@Injectable()
export class WasteService {
  constructor(
    private readonly repository: KitchenRepository,
    private readonly attendance: AttendanceQueries,
    private readonly messConfig: MessConfigService,
    private readonly users: UsersService,
    private readonly audit: AuditTrail,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  /**
   * What is wrong with a meal named by its date and meal type: a date that is not a real calendar date, a meal
   * type that is not a configured meal time (both when both are). The route's body check names them beside the
   * body's fields (WasteMealCheck); `record` checks them again.
   */
  async mealProblems(date: string, mealType: string): Promise<{ meal?: MealTime; errors: FieldError[] }> {
    const { mealTimes } = await this.messConfig.settings();
    const meal = mealTimes.find((m) => m.name === mealType);
    const errors: FieldError[] = [];
    if (!isCalendarDate(date)) {
      errors.push({ field: 'date', message: 'date must be a real calendar date written YYYY-MM-DD' });
    }
    if (!meal) {
      errors.push({
        field: 'mealType',
        message: `mealType must be one of ${mealTimes.map((m) => m.name).join(', ')}`,
      });
    }
    return { meal, errors };
  }

  /** 400 naming a bad date or meal type (both when both are); 409 before the meal starts. */
  async record(caller: CurrentMember, date: string, mealType: string, input: WasteInput): Promise<WasteRow> {
    const { meal, errors } = await this.mealProblems(date, mealType);
    if (errors.length || !meal) throw badRequest('Validation failed', errors);
    if (mealSpan(date, meal, this.config.messTimezone).start > this.clock.now())
      throw conflict(MEAL_NOT_STARTED);
    const presentMarks = await this.presentAt(date, mealType);
    return this.repository.transaction(async (tx) => {
      const before = await this.repository.findWasteForUpdate(date, mealType, tx);
      const row = await this.repository.upsertWaste(
        {
          date,
          mealType,
          presentMarks,
          preparedPlates: input.preparedPlates ?? null,
          leftoverGrams: input.leftoverGrams,
          note: input.note ?? '',
          recordedBy: caller.id,
        },
        tx,
      );
      await this.audit.record(tx, {
        actorId: caller.id,
        action: before ? 'replaced' : 'created',
        entity: 'waste',
        entityId: row.id,
        ...(before ? { before: auditSnapshot(before) } : {}),
        after: auditSnapshot(row),
      });
      return row;
    });
  }

  /** The meal's present marks now (kept with its waste record). */
  async presentAt(date: string, mealType: string): Promise<number> {
    const slots = await this.attendance.slotCounts(date, date);
    return slots.find((s) => s.mealType === mealType)?.present ?? 0;
  }

  /** Counts the meal's present marks again if it has a waste record (a mark of it changed). */
  async recount(date: string, mealType: string): Promise<void> {
    if (await this.repository.hasWaste(date, mealType))
      await this.repository.setPresentMarks(date, mealType, await this.presentAt(date, mealType));
  }

  /** The month's records (this month by default) and their summary. */
  async month(monthInput?: string): Promise<WasteMonth> {
    const month = monthInput ?? monthOf(localParts(this.clock.now(), this.config.messTimezone).date);
    const { first, last } = monthBounds(month);
    const [entries, slots] = await Promise.all([
      this.repository.wasteBetween(first, last),
      this.attendance.slotCounts(first, last),
    ]);
    const present = new Map(slots.map((s) => [`${s.date}|${s.mealType}`, s.present]));
    const byMeal = new Map<string, { grams: number; diners: number }>();
    let grams = 0;
    let diners = 0;
    for (const entry of entries) {
      const here = present.get(`${entry.date}|${entry.mealType}`) ?? 0;
      grams += entry.leftoverGrams;
      diners += here;
      const sum = byMeal.get(entry.mealType) ?? { grams: 0, diners: 0 };
      sum.grams += entry.leftoverGrams;
      sum.diners += here;
      byMeal.set(entry.mealType, sum);
    }
    const names = await this.users.namesOf([...new Set(entries.map((e) => e.recordedBy))]);
    return {
      month,
      entries,
      names,
      summary: {
        leftoverGrams: grams,
        perDinerGrams: perDinerGrams(grams, diners),
        byMealType: Object.fromEntries(
          [...byMeal].map(([mealType, s]) => [
            mealType,
            { leftoverGrams: s.grams, perDinerGrams: perDinerGrams(s.grams, s.diners) },
          ]),
        ),
      },
    };
  }
}

/** A record as the audit trail keeps it: grams. */
const auditSnapshot = (row: WasteRow) => ({
  date: row.date,
  mealType: row.mealType,
  preparedPlates: row.preparedPlates,
  leftoverGrams: row.leftoverGrams,
  note: row.note,
  recordedBy: row.recordedBy,
});
