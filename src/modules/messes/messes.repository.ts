import { Injectable } from '@nestjs/common';
import { rowsOf } from '../../database/sql-rows';
import { asc, eq, sql } from 'drizzle-orm';
import { isAnyUuid } from '../../database/sql-arrays';
import { Database, DbOrTx } from '../../database/database';
import { messes, MessRow, MessUpi } from './messes.schema';

/** The only code that writes `messes` (the deployment's list of messes; not scoped: a mess is not inside one). */
@Injectable()
export class MessesRepository {
  constructor(private readonly database: Database) {}

  async all(): Promise<MessRow[]> {
    return this.database.db.select().from(messes);
  }

  /** By `_id` or slug. */
  async find(idOrSlug: string): Promise<MessRow | undefined> {
    const byId = UUID.test(idOrSlug);
    const [row] = await this.database.db
      .select()
      .from(messes)
      .where(byId ? eq(messes.id, idOrSlug) : eq(messes.slug, idOrSlug))
      .limit(1);
    return row;
  }

  /** The slug's unique index turns a taken slug (also under concurrent creations) into a unique violation. */
  async insert(
    values: { slug: string; capacity: number | null; upi: MessUpi | null },
    db: DbOrTx = this.database.db,
  ): Promise<MessRow> {
    const [row] = await db.insert(messes).values(values).returning();
    return row;
  }

  async update(
    id: string,
    values: Partial<{ slug: string; capacity: number | null; upi: MessUpi | null }>,
    db: DbOrTx = this.database.db,
  ): Promise<MessRow | undefined> {
    if (!Object.keys(values).length) return this.find(id);
    const [row] = await db.update(messes).set(values).where(eq(messes.id, id)).returning();
    return row;
  }

  /**
   * Every mess's `{_id, slug, messName}`: the name is its configuration's (read across messes), the first mess's
   * default name before it is set up.
   */
  async labels(): Promise<MessLabel[]> {
    return this.database.acrossMesses(async (tx) => {
      const result = await tx.execute(
        sql`select m.id as "_id", m.slug, coalesce(c.mess_name, ${UNCONFIGURED_NAME}) as "messName"
            from messes m left join mess_config c on c.mess_id = m.id`,
      );
      return rowsOf<MessLabel>(result).map((r) => ({ ...r }));
    });
  }

  /** Holds the mess's row until the caller's transaction ends: approvals and moves into it take turns. */
  async lock(id: string, db: DbOrTx): Promise<MessRow | undefined> {
    const [row] = await db.select().from(messes).where(eq(messes.id, id)).for('update');
    return row;
  }

  /** Locks the rows of these messes in id order (the order every locker of several uses), in one statement. */
  lockMany(ids: string[], db: DbOrTx): Promise<MessRow[]> {
    if (!ids.length) return Promise.resolve([]);
    return db.select().from(messes).where(isAnyUuid(messes.id, ids)).orderBy(asc(messes.id)).for('update');
  }
}

/** How a user object names their mess: `{_id, slug, messName}`. */
export interface MessLabel {
  _id: string;
  slug: string;
  messName: string;
}

/** A mess's name before it is set up (the configuration defaults' name). */
export const UNCONFIGURED_NAME = 'Hostel Mess';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
