import { Injectable } from '@nestjs/common';
import { and, asc, count, desc, eq, gt, gte, lte, sql, SQL } from 'drizzle-orm';
import { Database, DbOrTx } from '../../database/database';
import { memberNames } from '../users';
import { extras, ExtraRow, NewExtraRow } from './extras.schema';

export interface ExtraListFilter {
  userId?: string;
  /** Inclusive `YYYY-MM-DD` bounds on the extra's date. */
  from?: string;
  to?: string;
  limit: number;
  offset: number;
}

export interface ExtraPage {
  rows: ExtraRow[];
  total: number;
  totalPaise: number;
}

/** One diner's extras of a period, in paise, with their name (for a bill line of a member with no meals). */
/** One member's extras of a period, by item and unit price: how many and what they came to. */
export interface MemberExtraItem {
  userId: string;
  item: string;
  unitPricePaise: number;
  quantity: number;
  amountPaise: number;
}

export interface MemberExtras {
  userId: string;
  fullName: string;
  amountPaise: number;
}

// sum(integer) is a bigint; it arrives as a string and is exact below 2^53 paise
const sumPaise = sql<number>`coalesce(sum(${extras.amountPaise}), 0)`.mapWith(Number);

/** The only code that queries `extras`. */
@Injectable()
export class ExtrasRepository {
  constructor(private readonly database: Database) {}

  /** A member's rows in the statement's mess, in id order after `after`, `limit` + 1 of them (the export's pages). */
  memberPage(
    userId: string,
    after: string | undefined,
    limit: number,
    db: DbOrTx = this.database.db,
  ): Promise<ExtraRow[]> {
    return db
      .select()
      .from(extras)
      .where(and(eq(extras.userId, userId), after === undefined ? undefined : gt(extras.id, after)))
      .orderBy(asc(extras.id))
      .limit(limit + 1);
  }

  private get db() {
    return this.database.db;
  }

  transaction<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  async insert(values: NewExtraRow, db: DbOrTx): Promise<ExtraRow> {
    const [row] = await db.insert(extras).values(values).returning();
    return row;
  }

  async findById(id: string): Promise<ExtraRow | undefined> {
    const [row] = await this.db.select().from(extras).where(eq(extras.id, id)).limit(1);
    return row;
  }

  async delete(id: string, db: DbOrTx): Promise<ExtraRow | undefined> {
    const [row] = await db.delete(extras).where(eq(extras.id, id)).returning();
    return row;
  }

  /** One page, newest first (date, then when recorded); plus the count and exact sum of all matches. */
  async list(filter: ExtraListFilter): Promise<ExtraPage> {
    const conditions: SQL[] = [];
    if (filter.userId !== undefined) conditions.push(eq(extras.userId, filter.userId));
    if (filter.from !== undefined) conditions.push(gte(extras.date, filter.from));
    if (filter.to !== undefined) conditions.push(lte(extras.date, filter.to));
    const where = conditions.length ? and(...conditions) : undefined;
    const [rows, [totals]] = await Promise.all([
      this.db
        .select()
        .from(extras)
        .where(where)
        .orderBy(desc(extras.date), desc(extras.createdAt), desc(extras.id))
        .limit(filter.limit)
        .offset(filter.offset),
      this.db.select({ total: count(), totalPaise: sumPaise }).from(extras).where(where),
    ]);
    return { rows, total: totals.total, totalPaise: totals.totalPaise };
  }

  /**
   * Each member's extras between two dates, in one grouped statement: every extra recorded is billed, whoever dines
   * now (none can be recorded for a non-diner). `db`: the caller's transaction (the month's close reads in it).
   */
  memberTotals(from: string, to: string, db: DbOrTx = this.db): Promise<MemberExtras[]> {
    return db
      .select({ userId: extras.userId, fullName: memberNames.fullName, amountPaise: sumPaise })
      .from(extras)
      .innerJoin(memberNames, eq(memberNames.memberId, extras.userId))
      .where(and(gte(extras.date, from), lte(extras.date, to)))
      .groupBy(extras.userId, memberNames.fullName)
      .orderBy(asc(extras.userId));
  }

  /** Each member's extras from `from` to `to` by item and unit price (a price change gives a second line). */
  memberItems(from: string, to: string, db: DbOrTx = this.db): Promise<MemberExtraItem[]> {
    return db
      .select({
        userId: extras.userId,
        item: extras.item,
        unitPricePaise: extras.unitPricePaise,
        quantity: sql<number>`sum(${extras.quantity})`.mapWith(Number),
        amountPaise: sumPaise,
      })
      .from(extras)
      .where(and(gte(extras.date, from), lte(extras.date, to)))
      .groupBy(extras.userId, extras.item, extras.unitPricePaise)
      .orderBy(asc(extras.userId), asc(extras.item), asc(extras.unitPricePaise));
  }
}
