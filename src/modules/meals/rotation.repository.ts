import { Injectable } from '@nestjs/common';
import { eq, sql } from 'drizzle-orm';
import { Database, type DbOrTx } from '../../database/database';
import { rowsOf } from '../../database/sql-rows';
import { inTransaction } from '../../database/transactions';
import { memberNames } from '../users';
import {
  mealRotations,
  MealRotationRow,
  meals,
  mealWithdrawnSlots,
  type RotationEntry,
} from './meals.schema';

export interface RotationWithUpdater {
  rotation: MealRotationRow;
  /** Null only if the member who set it no longer exists. */
  updaterName: string | null;
}

export interface RotationValues {
  startsOn: string;
  weeks: number;
  entries: RotationEntry[];
  updatedBy: string;
}

/** The only code that queries `meal_rotations` and `meal_withdrawn_slots`; it also writes the rotation's menus. */
@Injectable()
export class RotationRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  /** One transaction, run again whole after a deadlock or a serialisation failure (`inTransaction`). */
  transaction<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
    return inTransaction(this.db, work);
  }

  /** The rotation of the mess the code acts in. */
  async find(db: DbOrTx = this.db): Promise<RotationWithUpdater | undefined> {
    const [row] = await db
      .select({ rotation: mealRotations, updaterName: memberNames.fullName })
      .from(mealRotations)
      .leftJoin(memberNames, eq(memberNames.memberId, mealRotations.updatedBy))
      .limit(1);
    return row;
  }

  /** Sets the mess's one rotation (the unique key on the mess decides between a first and a second). */
  async upsert(values: RotationValues, db: DbOrTx): Promise<MealRotationRow> {
    const now = new Date();
    const [row] = await db
      .insert(mealRotations)
      .values({ ...values, updatedAt: now })
      .onConflictDoUpdate({
        target: mealRotations.messId,
        set: { ...values, updatedAt: now },
      })
      .returning();
    return row;
  }

  async delete(db: DbOrTx): Promise<MealRotationRow | undefined> {
    const [row] = await db.delete(mealRotations).returning();
    return row;
  }

  /**
   * Withdraws the rotation's menus that nobody edited (`source = 'rotation'`) of the days after `today`, and of
   * `today` those of the meal types in `openToday` (meals not started yet). Returns how many.
   */
  async withdrawUnedited(today: string, openToday: string[], db: DbOrTx): Promise<number> {
    const result = await db.execute(sql`
      with gone as (
        delete from ${meals}
        where ${meals.source} = 'rotation'
          and (${meals.date} > ${today}::date
            or (${meals.date} = ${today}::date
              and ${meals.mealType} in (select jsonb_array_elements_text(${JSON.stringify(openToday)}::jsonb))))
        returning 1
      )
      select count(*)::int as n from gone`);
    return rowsOf<{ n: number }>(result)[0]?.n ?? 0;
  }

  /**
   * Publishes the rotation's menus of `first` and the `days - 1` days after it into every slot that has no menu and
   * that no manager withdrew, of the meal types still configured (`mealTypes`), in one statement. A slot already held (by a manager's menu, or by another replica
   * publishing the same day) is left alone by the menus' unique key, so each slot is published once. It holds the
   * rotation's row (`for share`) while it runs, so a change of the rotation waits for it rather than crossing it.
   * Returns how many menus it published.
   */
  async publish(first: string, days: number, mealTypes: string[], db: DbOrTx = this.db): Promise<number> {
    const result = await db.execute(sql`
      with published as (
        insert into ${meals} (date, meal_type, dishes, notes, created_by, source)
        select d.day, e."mealType", e.dishes, coalesce(e.notes, ''), r.updated_by, 'rotation'
        from ${mealRotations} r
        cross join lateral (select ${first}::date + n as day from generate_series(0, ${days - 1}::int) n) d
        cross join lateral jsonb_to_recordset(r.entries)
          as e(week int, day text, "mealType" text, dishes text[], notes text)
        where d.day >= r.starts_on
          and e.week = ((d.day - r.starts_on) / 7) % r.weeks + 1
          and e.day = (array['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'])[extract(isodow from d.day)::int]
          and e."mealType" in (select jsonb_array_elements_text(${JSON.stringify(mealTypes)}::jsonb))
          and not exists (
            select 1 from ${mealWithdrawnSlots} w where w.date = d.day and w.meal_type = e."mealType"
          )
        for share of r
        on conflict do nothing
        returning 1
      )
      select count(*)::int as n from published`);
    return rowsOf<{ n: number }>(result)[0]?.n ?? 0;
  }

  /** Remembers that a manager withdrew the slot's menu. */
  async rememberWithdrawal(date: string, mealType: string, db: DbOrTx = this.db): Promise<void> {
    await db.insert(mealWithdrawnSlots).values({ date, mealType }).onConflictDoNothing();
  }

  /** A manager published the slot again: the rotation may fill it once more if it is withdrawn later. */
  async forgetWithdrawal(date: string, mealType: string, db: DbOrTx = this.db): Promise<void> {
    await db
      .delete(mealWithdrawnSlots)
      .where(sql`${mealWithdrawnSlots.date} = ${date} and ${mealWithdrawnSlots.mealType} = ${mealType}`);
  }

  /** The messes that have a rotation (read across messes). */
  async messesWithRotation(): Promise<string[]> {
    return this.database.acrossMesses(async (tx) => {
      const rows = await tx.select({ messId: mealRotations.messId }).from(mealRotations);
      return rows.map((r) => r.messId);
    });
  }
}
