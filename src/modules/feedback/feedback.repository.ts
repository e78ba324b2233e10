import { Injectable } from '@nestjs/common';
import { and, asc, avg, count, desc, eq, getTableColumns, gt, gte, lte, SQL } from 'drizzle-orm';
import { Database, DbOrTx } from '../../database/database';
import { memberNames } from '../users';
import { feedback, FeedbackRow, NewFeedbackRow } from './feedback.schema';

export interface FeedbackListFilter {
  mealType?: string;
  date?: string;
  rating?: number;
  userId?: string;
  limit: number;
  offset: number;
}

export interface FeedbackListRow extends FeedbackRow {
  fullName: string | null;
}

/** The only code that queries `feedback`. */
@Injectable()
export class FeedbackRepository {
  constructor(private readonly database: Database) {}

  /** A member's rows in the statement's mess, in id order after `after`, `limit` + 1 of them (the export's pages). */
  memberPage(
    userId: string,
    after: string | undefined,
    limit: number,
    db: DbOrTx = this.database.db,
  ): Promise<FeedbackRow[]> {
    return db
      .select()
      .from(feedback)
      .where(and(eq(feedback.userId, userId), after === undefined ? undefined : gt(feedback.id, after)))
      .orderBy(asc(feedback.id))
      .limit(limit + 1);
  }

  /** Erasure (extension 2.3): the member's comments in the statement's mess emptied; ratings stay. */
  async eraseComments(tx: DbOrTx, userId: string): Promise<void> {
    await tx.update(feedback).set({ comment: '' }).where(eq(feedback.userId, userId));
  }

  private get db() {
    return this.database.db;
  }

  async findById(id: string): Promise<FeedbackRow | undefined> {
    const [row] = await this.db.select().from(feedback).where(eq(feedback.id, id)).limit(1);
    return row;
  }

  /** One page joined with the members' names, newest meal first, and the total: two queries. */
  async list(filter: FeedbackListFilter): Promise<{ rows: FeedbackListRow[]; total: number }> {
    const conditions: SQL[] = [];
    if (filter.mealType) conditions.push(eq(feedback.mealType, filter.mealType));
    if (filter.date) conditions.push(eq(feedback.date, filter.date));
    if (filter.rating !== undefined) conditions.push(eq(feedback.rating, filter.rating));
    if (filter.userId) conditions.push(eq(feedback.userId, filter.userId));
    const where = conditions.length ? and(...conditions) : undefined;
    const [rows, [{ total }]] = await Promise.all([
      this.db
        .select({ ...getTableColumns(feedback), fullName: memberNames.fullName })
        .from(feedback)
        .leftJoin(memberNames, eq(memberNames.memberId, feedback.userId))
        .where(where)
        .orderBy(desc(feedback.date), desc(feedback.createdAt), desc(feedback.id))
        .limit(filter.limit)
        .offset(filter.offset),
      this.db.select({ total: count() }).from(feedback).where(where),
    ]);
    return { rows, total };
  }

  /** The id of a member's feedback on one meal, if given. */
  async findIdFor(userId: string, date: string, mealType: string): Promise<string | undefined> {
    const [row] = await this.db
      .select({ id: feedback.id })
      .from(feedback)
      .where(and(eq(feedback.userId, userId), eq(feedback.date, date), eq(feedback.mealType, mealType)))
      .limit(1);
    return row?.id;
  }

  /** A second feedback for the same (member, date, meal) violates the unique index (FEEDBACK_UNIQUE). */
  async insert(values: NewFeedbackRow): Promise<FeedbackRow> {
    const [row] = await this.db.insert(feedback).values(values).returning();
    return row;
  }

  async update(
    id: string,
    values: Partial<Pick<NewFeedbackRow, 'rating' | 'comment'>>,
    at: Date,
  ): Promise<FeedbackRow | undefined> {
    const [row] = await this.db
      .update(feedback)
      .set({ ...values, updatedAt: at })
      .where(eq(feedback.id, id))
      .returning();
    return row;
  }

  // ---- aggregates for other modules (through FeedbackQueries) ----

  async averageRating(from: string, to: string): Promise<{ average: number | null; count: number }> {
    const [row] = await this.db
      .select({ average: avg(feedback.rating), count: count() })
      .from(feedback)
      .where(and(gte(feedback.date, from), lte(feedback.date, to)));
    return { average: row.average === null ? null : Number(row.average), count: row.count };
  }

  /** `averageRating` of every mess at once, by mess id (a mess without feedback in the range is absent). */
  async averageRatingPerMess(from: string, to: string): Promise<Map<string, number>> {
    const rows = await this.database.acrossMesses((tx) =>
      tx
        .select({ messId: feedback.messId, average: avg(feedback.rating) })
        .from(feedback)
        .where(and(gte(feedback.date, from), lte(feedback.date, to)))
        .groupBy(feedback.messId),
    );
    return new Map(rows.map((r) => [r.messId, Number(r.average)]));
  }

  async averageRatingByMealType(
    from: string,
    to: string,
  ): Promise<{ mealType: string; average: number; count: number }[]> {
    const rows = await this.db
      .select({ mealType: feedback.mealType, average: avg(feedback.rating), count: count() })
      .from(feedback)
      .where(and(gte(feedback.date, from), lte(feedback.date, to)))
      .groupBy(feedback.mealType)
      .orderBy(asc(feedback.mealType));
    return rows.map((r) => ({ mealType: r.mealType, average: Number(r.average), count: r.count }));
  }
}
