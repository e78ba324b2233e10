import { Injectable } from '@nestjs/common';
import { Database, DbOrTx } from '../../database/database';
import { messConfig, MessConfigRow } from './mess-config.schema';

type ConfigValues = Omit<typeof messConfig.$inferInsert, 'id' | 'singleton' | 'createdAt' | 'updatedAt'>;

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

  /** The singleton's unique index turns a second (or concurrent) creation into a unique violation. */
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
}
