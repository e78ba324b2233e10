import { Injectable } from '@nestjs/common';
import { and, asc, eq, gte, lte, sql } from 'drizzle-orm';
import { Database, type DbOrTx } from '../../database/database';
import { memberNames } from '../users';
import { meals, MealRow, NewMealRow } from './meals.schema';

export interface MealWithCreator {
  meal: MealRow;
  /** Null only if the publishing member no longer exists. */
  creatorName: string | null;
}

export interface MealListFilter {
  /** Inclusive `YYYY-MM-DD` bounds. */
  first: string;
  last: string;
  mealType?: string;
}

export type MealValues = Pick<NewMealRow, 'date' | 'mealType' | 'dishes' | 'notes'>;

const withCreator = { meal: meals, creatorName: memberNames.fullName };

/** The only code that queries `meals`. */
@Injectable()
export class MealsRepository {
  /** The menu read, built and named once (it runs on every menu page): with and without a meal type. */
  private readonly between;
  private readonly betweenOfType;

  constructor(private readonly database: Database) {
    this.between = this.prepareBetween(false);
    this.betweenOfType = this.prepareBetween(true);
  }

  private prepareBetween(ofType: boolean) {
    const inPeriod = and(gte(meals.date, sql.placeholder('first')), lte(meals.date, sql.placeholder('last')));
    return this.database.db
      .select(withCreator)
      .from(meals)
      .leftJoin(memberNames, eq(memberNames.memberId, meals.createdBy))
      .where(ofType ? and(inPeriod, eq(meals.mealType, sql.placeholder('mealType'))) : inPeriod)
      .orderBy(asc(meals.date), asc(meals.mealType))
      .prepare(ofType ? 'meals_between_of_type' : 'meals_between');
  }

  private get db() {
    return this.database.db;
  }

  async existsForSlot(date: string, mealType: string): Promise<boolean> {
    return (await this.findIdForSlot(date, mealType)) !== undefined;
  }

  /** The id of the menu of a (date, meal type), if there is one. */
  async findIdForSlot(date: string, mealType: string): Promise<string | undefined> {
    const [row] = await this.db
      .select({ id: meals.id })
      .from(meals)
      .where(and(eq(meals.date, date), eq(meals.mealType, mealType)))
      .limit(1);
    return row?.id;
  }

  async findById(id: string): Promise<MealWithCreator | undefined> {
    const [row] = await this.db
      .select(withCreator)
      .from(meals)
      .leftJoin(memberNames, eq(memberNames.memberId, meals.createdBy))
      .where(eq(meals.id, id))
      .limit(1);
    return row;
  }

  /** The menus of a period (a day or a week, so always a handful), by date and meal type. */
  async listBetween(filter: MealListFilter): Promise<MealWithCreator[]> {
    return filter.mealType === undefined
      ? this.between.execute({ first: filter.first, last: filter.last })
      : this.betweenOfType.execute({ first: filter.first, last: filter.last, mealType: filter.mealType });
  }

  /** A second menu for the same (date, meal type), also under a race, is a unique violation (409). */
  async insert(values: NewMealRow, db: DbOrTx = this.db): Promise<MealRow> {
    const [row] = await db.insert(meals).values(values).returning();
    return row;
  }

  /** An edit by a manager: the menu is theirs from now on (`source: 'manager'`). */
  async update(
    id: string,
    values: MealValues & { createdBy?: string },
    db: DbOrTx = this.db,
  ): Promise<MealRow | undefined> {
    const [row] = await db
      .update(meals)
      .set({ ...values, source: 'manager', updatedAt: new Date() })
      .where(eq(meals.id, id))
      .returning();
    return row;
  }

  async delete(id: string, db: DbOrTx = this.db): Promise<MealRow | undefined> {
    const [row] = await db.delete(meals).where(eq(meals.id, id)).returning();
    return row;
  }
}
