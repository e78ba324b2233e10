import { Injectable } from '@nestjs/common';
import { eq, sql } from 'drizzle-orm';
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

  /** Holds the mess's row until the caller's transaction ends: approvals and moves into it take turns. */
  async lock(id: string, db: DbOrTx): Promise<MessRow | undefined> {
    const [row] = await db.select().from(messes).where(eq(messes.id, id)).for('update');
    return row;
  }

  /** Whether `slug` is free (for a clear 409 before the unique index would say so). */
  async slugTaken(slug: string, exceptId?: string): Promise<boolean> {
    const [row] = await this.database.db
      .select({ id: messes.id })
      .from(messes)
      .where(exceptId ? sql`${messes.slug} = ${slug} and ${messes.id} <> ${exceptId}` : eq(messes.slug, slug))
      .limit(1);
    return Boolean(row);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
