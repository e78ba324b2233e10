import { Injectable } from '@nestjs/common';
import { Database } from '../../database/database';
import { messConfig, MessConfigRow } from './mess-config.schema';

type ConfigValues = Omit<typeof messConfig.$inferInsert, 'id' | 'singleton' | 'createdAt' | 'updatedAt'>;

@Injectable()
export class MessConfigRepository {
  constructor(private readonly database: Database) {}

  async find(): Promise<MessConfigRow | undefined> {
    const [row] = await this.database.db.select().from(messConfig).limit(1);
    return row;
  }

  /** The singleton's unique index turns a second (or concurrent) creation into a unique violation. */
  async insert(values: ConfigValues): Promise<MessConfigRow> {
    const [row] = await this.database.db.insert(messConfig).values(values).returning();
    return row;
  }

  async update(values: Omit<ConfigValues, 'createdBy'>): Promise<MessConfigRow | undefined> {
    const [row] = await this.database.db
      .update(messConfig)
      .set({ ...values, updatedAt: new Date() })
      .returning();
    return row;
  }
}
