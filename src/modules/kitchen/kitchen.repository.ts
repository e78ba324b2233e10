import { Injectable } from '@nestjs/common';
import { and, asc, eq, gte, isNull, lte, sql } from 'drizzle-orm';
import { currentMessId } from '../../common/tenancy/mess-scope';
import { Database, DbOrTx } from '../../database/database';
import type { FittedModel } from './forecast-model';
import { kitchenForecasts, kitchenModels, kitchenWaste, NewWasteRow, WasteRow } from './kitchen.schema';

/** A meal's forecast as kept: the university's view (tomorrow's) and the back-test (the evening before's). */
export interface StoredForecast {
  date: string;
  mealType: string;
  expected: number;
  low: number;
  high: number;
}

/** The only code that queries `kitchen_waste`, `kitchen_forecasts` and `kitchen_models`. */
@Injectable()
export class KitchenRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  transaction<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /** The meal's record, locked until `tx` ends (a second record for the meal replaces it). */
  async findWasteForUpdate(date: string, mealType: string, tx: DbOrTx): Promise<WasteRow | undefined> {
    const [row] = await tx
      .select()
      .from(kitchenWaste)
      .where(and(eq(kitchenWaste.date, date), eq(kitchenWaste.mealType, mealType)))
      .for('update');
    return row;
  }

  /** Writes the meal's record (inserting it, or replacing the one there under a race). */
  async upsertWaste(values: NewWasteRow, tx: DbOrTx): Promise<WasteRow> {
    const [row] = await tx
      .insert(kitchenWaste)
      .values(values)
      .onConflictDoUpdate({
        target: [kitchenWaste.messId, kitchenWaste.date, kitchenWaste.mealType],
        set: {
          preparedPlates: values.preparedPlates,
          leftoverGrams: values.leftoverGrams,
          presentMarks: values.presentMarks,
          note: values.note,
          recordedBy: values.recordedBy,
          updatedAt: new Date(),
        },
      })
      .returning();
    return row;
  }

  /** The records between two dates, by date then meal type. */
  wasteBetween(from: string, to: string): Promise<WasteRow[]> {
    return this.db
      .select()
      .from(kitchenWaste)
      .where(and(gte(kitchenWaste.date, from), lte(kitchenWaste.date, to)))
      .orderBy(asc(kitchenWaste.date), asc(kitchenWaste.mealType));
  }

  /**
   * Keeps a forecast answered before its meal's day began, made at `madeAt` (the app's clock): each meal keeps the
   * last such answer (an answer made earlier, committing later, leaves it).
   */
  async storeForecasts(rows: StoredForecast[], madeAt: Date): Promise<void> {
    if (!rows.length) return;
    await this.db
      .insert(kitchenForecasts)
      .values(rows.map((row) => ({ ...row, madeAt })))
      .onConflictDoUpdate({
        target: [kitchenForecasts.messId, kitchenForecasts.date, kitchenForecasts.mealType],
        set: {
          expected: sql`excluded.expected`,
          low: sql`excluded.low`,
          high: sql`excluded.high`,
          madeAt: sql`excluded.made_at`,
        },
        setWhere: sql`${kitchenForecasts.madeAt} <= excluded.made_at`,
      });
  }

  /** The kept forecasts of the meals between two dates, with when each was made. */
  forecastsBetween(from: string, to: string): Promise<(StoredForecast & { madeAt: Date })[]> {
    return this.db
      .select({
        date: kitchenForecasts.date,
        mealType: kitchenForecasts.mealType,
        expected: kitchenForecasts.expected,
        low: kitchenForecasts.low,
        high: kitchenForecasts.high,
        madeAt: kitchenForecasts.madeAt,
      })
      .from(kitchenForecasts)
      .where(and(gte(kitchenForecasts.date, from), lte(kitchenForecasts.date, to)));
  }

  /**
   * The kept models as parsed here, by mess, with the version (`made_at`) they were read at. A model is ~0.5 MB of
   * JSON for a mess of 2,000: reading and parsing it on every forecast cost more than the forecast (and most of its
   * garbage), so a request reads the model's version and counters only, and the model itself when it changed (a fit
   * here or on another replica stores a new one). Bounded: the messes forecast most recently.
   */
  private readonly parsed = new Map<string, { version: string; model: FittedModel }>();
  static readonly PARSED_MODELS_KEPT = 64;

  /**
   * The mess's kept model with `changes` (the changes of the past heard so far) and whether it is current (fitted
   * after the last of them); undefined when none is kept.
   */
  async keptModel(): Promise<{ model: FittedModel; changes: number; current: boolean } | undefined> {
    const messId = currentMessId();
    const counters = {
      version: sql<string>`${kitchenModels.madeAt}::text`,
      changes: kitchenModels.changes,
      fittedChanges: kitchenModels.fittedChanges,
    };
    const [row] = await this.db.select(counters).from(kitchenModels);
    if (!row) return undefined;
    let held = this.parsed.get(messId);
    let { changes, fittedChanges } = row;
    if (held?.version !== row.version) {
      const [full] = await this.db.select({ ...counters, model: kitchenModels.model }).from(kitchenModels);
      if (!full) return undefined;
      ({ changes, fittedChanges } = full);
      held = { version: full.version, model: full.model };
      this.parsed.delete(messId);
      this.parsed.set(messId, held);
      if (this.parsed.size > KitchenRepository.PARSED_MODELS_KEPT)
        this.parsed.delete(this.parsed.keys().next().value!);
    }
    return { model: held.model, changes, current: changes === fittedChanges };
  }

  /** The mess's kept model of this cutoff date, if one is kept and current (no change heard since its fit). */
  async modelAt(cutoff: string): Promise<FittedModel | undefined> {
    const kept = await this.keptModel();
    return kept?.current && kept.model.cutoff === cutoff ? kept.model : undefined;
  }

  /**
   * Keeps the mess's fitted model (one a mess: the latest replaces it); `fittedChanges`: the changes the kept row
   * counted before the fit read the records (a change heard during the fit leaves the model out of date).
   */
  async storeModel(model: FittedModel, fittedChanges = 0): Promise<void> {
    await this.db
      .insert(kitchenModels)
      .values({ cutoff: model.cutoff, model, fittedChanges, changes: fittedChanges })
      .onConflictDoUpdate({
        target: [kitchenModels.messId],
        set: { cutoff: model.cutoff, model, fittedChanges, madeAt: sql`now()` },
      });
  }

  /** Counts a change of a record the model was fitted from: the kept model is out of date until fitted again. */
  async modelChanged(): Promise<void> {
    await this.db.update(kitchenModels).set({ changes: sql`${kitchenModels.changes} + 1` });
  }

  /** Drops the mess's kept model (the next forecast fits again, in the request). */
  async dropModel(): Promise<void> {
    await this.db.delete(kitchenModels);
  }

  /** Every mess's stored plates of a date (the sum over its meals); a mess with none stored is absent. */
  async expectedPlatesPerMess(date: string): Promise<Map<string, number>> {
    const rows = await this.database.acrossMesses((tx) =>
      tx
        .select({
          messId: kitchenForecasts.messId,
          plates: sql<number>`sum(${kitchenForecasts.expected})`.mapWith(Number),
        })
        .from(kitchenForecasts)
        .where(eq(kitchenForecasts.date, date))
        .groupBy(kitchenForecasts.messId),
    );
    return new Map(rows.map((r) => [r.messId, r.plates]));
  }

  /** Whether the meal has a waste record. */
  async hasWaste(date: string, mealType: string): Promise<boolean> {
    const [row] = await this.db
      .select({ id: kitchenWaste.id })
      .from(kitchenWaste)
      .where(and(eq(kitchenWaste.date, date), eq(kitchenWaste.mealType, mealType)));
    return row !== undefined;
  }

  /** Sets the present marks kept with the meal's waste record (none: nothing). */
  async setPresentMarks(date: string, mealType: string, presentMarks: number): Promise<void> {
    await this.db
      .update(kitchenWaste)
      .set({ presentMarks })
      .where(and(eq(kitchenWaste.date, date), eq(kitchenWaste.mealType, mealType)));
  }

  /**
   * Every mess's recorded waste between two dates summed (for the university's leftover per diner): its grams, the
   * present marks kept with its records, and how many records keep none (from before they were kept).
   */
  async wasteSumsEveryMess(
    from: string,
    to: string,
  ): Promise<{ messId: string; grams: number; present: number; uncounted: number }[]> {
    return this.database.acrossMesses((tx) =>
      tx
        .select({
          messId: kitchenWaste.messId,
          grams: sql<number>`sum(${kitchenWaste.leftoverGrams})`.mapWith(Number),
          present: sql<number>`coalesce(sum(${kitchenWaste.presentMarks}), 0)`.mapWith(Number),
          uncounted: sql<number>`count(*) filter (where ${kitchenWaste.presentMarks} is null)`.mapWith(Number),
        })
        .from(kitchenWaste)
        .where(and(gte(kitchenWaste.date, from), lte(kitchenWaste.date, to)))
        .groupBy(kitchenWaste.messId),
    );
  }

  /** Every mess's waste records between two dates that keep no present marks (from before they were kept). */
  uncountedWasteEveryMess(
    from: string,
    to: string,
  ): Promise<{ messId: string; date: string; mealType: string }[]> {
    return this.database.acrossMesses((tx) =>
      tx
        .select({ messId: kitchenWaste.messId, date: kitchenWaste.date, mealType: kitchenWaste.mealType })
        .from(kitchenWaste)
        .where(
          and(gte(kitchenWaste.date, from), lte(kitchenWaste.date, to), isNull(kitchenWaste.presentMarks)),
        ),
    );
  }
}
