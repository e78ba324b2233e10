import { Injectable } from '@nestjs/common';
import { type CurrentMember } from '../../common/auth/auth.decorators';
import { badRequest, type FieldError } from '../../common/errors/api-error';
import { currentMessId } from '../../common/tenancy/mess-scope';
import { Clock } from '../../common/time/clock';
import { localParts, zonedInstant } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import type { DbOrTx } from '../../database/database';
import { AuditTrail } from '../audit-trail';
import { MessConfigService } from '../mess-config';
import { SetRotationDto } from './dto/rotation.requests';
import type { MealRotationRow, RotationEntry } from './meals.schema';
import { RotationRepository, type RotationWithUpdater } from './rotation.repository';

/** How many days the rotation's menus are published ahead: today and the next 13. */
export const ROTATION_WINDOW_DAYS = 14;

/**
 * The weekly menu: a mess's rotation of 1 to 6 weeks from a Monday, published as ordinary menus (`source:
 * 'rotation'`) for today and the next 13 days into slots that have no menu and that no manager withdrew. Rotation
 * menus raise no meal events (so no MEAL_UPDATE); a manager's menu always wins. Owner of `meal_rotations` and
 * `meal_withdrawn_slots`.
 */
@Injectable()
export class RotationService {
  constructor(
    private readonly repository: RotationRepository,
    private readonly messConfig: MessConfigService,
    private readonly audit: AuditTrail,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  get(): Promise<RotationWithUpdater | undefined> {
    return this.repository.find();
  }

  /**
   * Sets (or replaces) the rotation: in one transaction, withdraws the old rotation's unedited menus of the coming
   * days, stores the new one, and publishes its window. Bad input is a 400 naming every bad field and changes nothing.
   */
  async set(caller: CurrentMember, body: SetRotationDto): Promise<RotationWithUpdater> {
    const entries = await this.checked(body);
    const { today, openToday, mealTypes } = await this.now();
    const rotation = await this.repository.transaction(async (tx) => {
      const before = await this.repository.find(tx);
      // The rotation's row first: it holds concurrent sets (and the daily publishing) back until this one commits,
      // so two never wait on each other's menus.
      const row = await this.repository.upsert(
        { startsOn: body.startsOn, weeks: body.weeks, entries, updatedBy: caller.id },
        tx,
      );
      await this.repository.withdrawUnedited(today, openToday, tx);
      await this.repository.publish(today, ROTATION_WINDOW_DAYS, mealTypes, tx);
      await this.audit.record(tx, {
        actorId: caller.id,
        action: 'set',
        entity: 'rotation',
        entityId: currentMessId(),
        before: before ? snapshot(before.rotation) : undefined,
        after: snapshot(row),
      });
      return row;
    });
    return { rotation, updaterName: caller.fullName };
  }

  /** Deletes the rotation and withdraws its unedited menus of the coming days; true when there was one. */
  async remove(caller: CurrentMember): Promise<boolean> {
    const { today, openToday } = await this.now();
    return this.repository.transaction(async (tx: DbOrTx) => {
      const gone = await this.repository.delete(tx);
      if (!gone) return false;
      await this.repository.withdrawUnedited(today, openToday, tx);
      await this.audit.record(tx, {
        actorId: caller.id,
        action: 'deleted',
        entity: 'rotation',
        entityId: currentMessId(),
        before: snapshot(gone),
      });
      return true;
    });
  }

  /**
   * The daily publishing, for the mess the code acts in: the whole window from today, so a day that came into it
   * while the service was down is caught up. Slots already held are left alone (the menus' unique key), so every
   * replica may run it. Returns how many menus it published.
   */
  async publishWindow(now: Date = this.clock.now()): Promise<number> {
    const today = localParts(now, this.config.messTimezone).date;
    const { mealTimes } = await this.messConfig.settings();
    const mealTypes = mealTimes.map((meal) => meal.name);
    return this.repository.publish(today, ROTATION_WINDOW_DAYS, mealTypes);
  }

  /** The messes with a rotation (for the daily publishing). */
  messesWithRotation(): Promise<string[]> {
    return this.repository.messesWithRotation();
  }

  /**
   * Today in the mess time zone, today's meal types that have not started (their menus may still change), and the
   * configured meal types (an entry of a meal time since removed publishes nothing).
   */
  private async now(): Promise<{ today: string; openToday: string[]; mealTypes: string[] }> {
    const now = this.clock.now();
    const tz = this.config.messTimezone;
    const today = localParts(now, tz).date;
    const { mealTimes } = await this.messConfig.settings();
    const openToday = mealTimes
      .filter((meal) => zonedInstant(today, meal.startTime, tz).getTime() > now.getTime())
      .map((meal) => meal.name);
    return { today, openToday, mealTypes: mealTimes.map((meal) => meal.name) };
  }

  /** The rules the DTO cannot see: a Monday, weeks in range, configured meals, one entry per slot. */
  private async checked(body: SetRotationDto): Promise<RotationEntry[]> {
    const details: FieldError[] = [];
    if (new Date(`${body.startsOn}T00:00:00Z`).getUTCDay() !== 1) {
      details.push({ field: 'startsOn', message: 'startsOn must be a Monday' });
    }
    const { mealTimes } = await this.messConfig.settings();
    const names = new Set(mealTimes.map((m) => m.name));
    const seen = new Set<string>();
    body.entries.forEach((entry, i) => {
      if (entry.week > body.weeks) {
        details.push({ field: `entries.${i}.week`, message: `week must be 1 to weeks (${body.weeks})` });
      }
      if (!names.has(entry.mealType)) {
        details.push({
          field: `entries.${i}.mealType`,
          message: `mealType must be one of ${mealTimes.map((m) => m.name).join(', ')}`,
        });
      }
      const slot = `${entry.week}|${entry.day}|${entry.mealType}`;
      if (seen.has(slot)) {
        details.push({
          field: `entries.${i}`,
          message: `a second entry for week ${entry.week}, ${entry.day}, ${entry.mealType}`,
        });
      }
      seen.add(slot);
    });
    if (details.length) throw badRequest('Validation failed', details);
    return body.entries.map((e) => ({
      week: e.week,
      day: e.day,
      mealType: e.mealType,
      dishes: e.dishes,
      notes: e.notes ?? '',
    }));
  }
}

const snapshot = (row: MealRotationRow) => ({
  startsOn: row.startsOn,
  weeks: row.weeks,
  entries: row.entries.length,
  updatedBy: row.updatedBy,
});
