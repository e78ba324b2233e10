import { QueryBuilder } from 'drizzle-orm/pg-core';
import { messes } from './messes.schema';

/**
 * The messes module's read-side relation for other modules' queries: every mess's row, read-only (the mess
 * catalogue's list joins its configuration and its members to it in one query). The table itself stays this
 * module's: writes go through MessDirectory (`create`, `update`, `lock`).
 */
export const messRows = new QueryBuilder()
  .select({
    id: messes.id,
    slug: messes.slug,
    capacity: messes.capacity,
    upi: messes.upi,
    createdAt: messes.createdAt,
  })
  .from(messes)
  .as('mess_rows');
