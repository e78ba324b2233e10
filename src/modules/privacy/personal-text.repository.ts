import { Injectable } from '@nestjs/common';
import { sql } from 'drizzle-orm';
import { type DbOrTx } from '../../database/database';
import { textArray } from '../../database/sql-arrays';
import { rowsOf } from '../../database/sql-rows';

/**
 * Erasure's one pass over the text of every table (decision 0010, migration `…_erasure_walks_every_text_column`):
 * the database routine `erase_personal_text` finds every text, varchar, json and jsonb column of every table from
 * the catalogue, so a table a future module adds is covered without a change here. It is the one query of the
 * privacy module outside its own table: what it rewrites is the person's values, wherever a module stored them.
 */
@Injectable()
export class PersonalTextRepository {
  /**
   * In the mess `tx` acts in (and, with `sharedTables`, in the deployment's tables without a mess): the person's
   * name replaced by `pseudonym` as whole words, each of `removed` of 6 characters or more removed, case aside; the
   * audit trail's and the ledger's values removed the one way their guards allow. Returns how many rows changed.
   */
  async erase(
    tx: DbOrTx,
    person: { id: string; fullName: string; removed: readonly string[]; pseudonym: string },
    sharedTables: boolean,
  ): Promise<number> {
    const result = await tx.execute(
      sql`select erase_personal_text(${person.id}::uuid, ${person.fullName}, ${textArray(person.removed)},
        ${person.pseudonym}, ${sharedTables}) as changed`,
    );
    return Number(rowsOf<{ changed: number }>(result)[0]?.changed ?? 0);
  }
}
