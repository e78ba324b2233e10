import { can } from '../../common/auth/permissions';
import { Injectable } from '@nestjs/common';
import { type CurrentMember } from '../../common/auth/auth.decorators';
import { conflict, forbidden, notFound } from '../../common/errors/api-error';
import { violatedUniqueConstraint } from '../../common/errors/database-errors';
import { DomainEventBus } from '../../common/events/domain-event-bus';
import { Clock } from '../../common/time/clock';
import { localParts } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import { MessConfigService } from '../mess-config';
import { ListMealsQuery, MealBodyDto } from './dto/meal.requests';
import { mealEvent } from './meal-events';
import { MealsRepository, MealValues, type MealWithCreator } from './meals.repository';
import { resolveMenuPeriod, sortMenus } from './menu-period';
import { MEAL_SLOT_UNIQUE, MENU_TAKEN } from './meals.errors';
import { RotationRepository } from './rotation.repository';

/** The menu: publishing, reading by day or week, and changes by its publisher or an admin. Owner of `meals`. */
@Injectable()
export class MealsService {
  constructor(
    private readonly repository: MealsRepository,
    private readonly rotation: RotationRepository,
    private readonly messConfig: MessConfigService,
    private readonly events: DomainEventBus,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  async list(query: ListMealsQuery): Promise<MealWithCreator[]> {
    const today = localParts(this.clock.now(), this.config.messTimezone).date;
    const period = resolveMenuPeriod(query, today);
    const [rows, { mealTimes }] = await Promise.all([
      this.repository.listBetween({ ...period, mealType: query.mealType }),
      this.messConfig.settings(),
    ]);
    return sortMenus(rows, mealTimes, (row) => row.meal);
  }

  /** The menus between two dates (inclusive): date, meal type and dishes (the kitchen learns their draw). */
  async menusBetween(
    first: string,
    last: string,
  ): Promise<{ date: string; mealType: string; dishes: string[] }[]> {
    const rows = await this.repository.listBetween({ first, last });
    return rows.map(({ meal }) => ({ date: meal.date, mealType: meal.mealType, dishes: meal.dishes }));
  }

  /** Whether a menu is published for the slot (for other modules, which need no more than that). */
  async exists(date: string, mealType: string): Promise<boolean> {
    return this.repository.existsForSlot(date, mealType);
  }

  async get(id: string): Promise<MealWithCreator> {
    const found = await this.repository.findById(id);
    if (!found) throw notFound('Meal not found');
    return found;
  }

  async publish(caller: CurrentMember, body: MealBodyDto): Promise<MealWithCreator> {
    const values = await this.values(body);
    // With the menu, in its transaction: the slot the weekly menu may fill again, and the durable MEAL_UPDATE
    // promise (the outbox).
    const meal = await this.namingTheHolder(values, () =>
      this.rotation.transaction(async (tx) => {
        const row = await this.repository.insert({ ...values, createdBy: caller.id }, tx);
        await this.rotation.forgetWithdrawal(row.date, row.mealType, tx);
        await this.events.publishWithin(tx, 'meal.published', mealEvent(row, caller.id));
        return row;
      }),
    );
    return { meal, creatorName: caller.fullName };
  }

  /** Input is checked first (400), then existence (404), then ownership (403); moving onto a taken slot is 409. */
  async replace(caller: CurrentMember, id: string, body: MealBodyDto): Promise<MealWithCreator> {
    const values = await this.values(body);
    const found = await this.getChangeableBy(caller, id);
    // A menu of the weekly menu belongs to the mess: the manager who edits it becomes its publisher.
    const adopted = found.meal.source === 'rotation';
    const meal = await this.namingTheHolder(values, () =>
      this.rotation.transaction(async (tx) => {
        const row = await this.repository.update(
          id,
          adopted ? { ...values, createdBy: caller.id } : values,
          tx,
        );
        if (row) await this.events.publishWithin(tx, 'meal.changed', mealEvent(row, caller.id));
        return row;
      }),
    );
    if (!meal) throw notFound('Meal not found');
    return { meal, creatorName: adopted ? caller.fullName : found.creatorName };
  }

  /**
   * Runs a write that may land on a taken slot; the 409 then names the menu that holds it (`existingId`), so a
   * client can open it instead of searching. The unique index decides, so a race is caught the same way.
   */
  private async namingTheHolder<T>(
    slot: { date: string; mealType: string },
    write: () => Promise<T>,
  ): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (violatedUniqueConstraint(error) !== MEAL_SLOT_UNIQUE) throw error;
      throw conflict(MENU_TAKEN, await this.repository.findIdForSlot(slot.date, slot.mealType));
    }
  }

  async remove(caller: CurrentMember, id: string): Promise<void> {
    await this.getChangeableBy(caller, id);
    // with the menu, the record that the weekly menu leaves its slot empty from now on
    const meal = await this.rotation.transaction(async (tx) => {
      const row = await this.repository.delete(id, tx);
      if (row) {
        await this.rotation.rememberWithdrawal(row.date, row.mealType, tx);
        await this.events.publishWithin(tx, 'meal.deleted', mealEvent(row, caller.id));
      }
      return row;
    });
    if (!meal) throw notFound('Meal not found');
  }

  /**
   * An admin, or the publisher while still a manager: a manager demoted to student or treasurer keeps no power over
   * their old menus. The publisher never changes and the caller's role is read from the database on this request,
   * so checking before the write is as good as during.
   */
  private async getChangeableBy(caller: CurrentMember, id: string): Promise<MealWithCreator> {
    const found = await this.get(id);
    if (can(caller, 'menus.edit-any')) return found;
    // the weekly menu's unedited menus are any manager's to edit or withdraw
    if (found.meal.source === 'rotation' && can(caller, 'menus.publish')) return found;
    if (found.meal.createdBy !== caller.id) throw forbidden('You can only change your own menus');
    if (!can(caller, 'menus.publish')) throw forbidden('Only a manager can change the menus they published');
    return found;
  }

  private async values(body: MealBodyDto): Promise<MealValues> {
    await this.messConfig.assertMealType(body.mealType);
    return { date: body.date, mealType: body.mealType, dishes: body.dishes, notes: body.notes ?? '' };
  }
}
