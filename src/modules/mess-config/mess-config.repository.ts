import { Injectable } from '@nestjs/common';
import { eq, sql } from 'drizzle-orm';
import { messRows, type MessRow } from '../messes';
import { Database, DbOrTx } from '../../database/database';
import { messConfig, MessConfigRow } from './mess-config.schema';

type ConfigValues = Omit<typeof messConfig.$inferInsert, 'id' | 'messId' | 'createdAt' | 'updatedAt'>;

@Injectable()
export class MessConfigRepository {
  constructor(private readonly database: Database) {}

  transaction<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
    return this.database.db.transaction(work);
  }

  /** `lock`: in the caller's transaction, holds the row until it commits (a replacement reads what it replaces). */
  async find(
    db: DbOrTx = this.database.db,
    options: { lock?: boolean } = {},
  ): Promise<MessConfigRow | undefined> {
    const query = db.select().from(messConfig).limit(1);
    const [row] = options.lock ? await query.for('update') : await query;
    return row;
  }

  /** One row per mess (row-level security shows the request's): a second (or concurrent) creation is a unique violation. */
  async insert(values: ConfigValues, db: DbOrTx = this.database.db): Promise<MessConfigRow> {
    const [row] = await db.insert(messConfig).values(values).returning();
    return row;
  }

  async update(
    values: Omit<ConfigValues, 'createdBy'>,
    db: DbOrTx = this.database.db,
  ): Promise<MessConfigRow | undefined> {
    const [row] = await db
      .update(messConfig)
      .set({ ...values, updatedAt: new Date() })
      .returning();
    return row;
  }

  /**
   * Every mess (or one) with its configuration, if it has one, and its approved members now: read across messes
   * (the list is public, like each mess's configuration).
   */
  async listMesses(messId?: string): Promise<MessListing[]> {
    return this.database.acrossMesses((tx) =>
      tx
        .select({
          mess: {
            id: messRows.id,
            slug: messRows.slug,
            capacity: messRows.capacity,
            upi: messRows.upi,
            createdAt: messRows.createdAt,
          },
          config: messConfig,
          members:
            sql<number>`(select count(*) from users u where u.mess_id = ${messRows.id} and u.status = 'approved')`.mapWith(
              Number,
            ),
        })
        .from(messRows)
        .leftJoin(messConfig, eq(messConfig.messId, messRows.id))
        .where(messId ? eq(messRows.id, messId) : undefined),
    );
  }
}

export interface MessListing {
  mess: MessRow;
  config: MessConfigRow | null;
  members: number;
}
