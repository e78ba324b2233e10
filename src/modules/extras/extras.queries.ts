import { Injectable } from '@nestjs/common';
import { monthBounds } from '../../common/time/dates';
import type { DbOrTx } from '../../database/database';
import { ExtrasRepository, MemberExtraItem, MemberExtras } from './extras.repository';

export type { MemberExtraItem, MemberExtras } from './extras.repository';

/** The read-only view of extras that billing uses: one aggregate query, exact integer paise. */
@Injectable()
export class ExtrasQueries {
  constructor(private readonly repository: ExtrasRepository) {}

  /**
   * Each diner's extras of a `YYYY-MM` month with their name; members with none are absent. `db`: the caller's
   * transaction, to read inside it (the month's close).
   */
  monthTotalsByMember(month: string, db?: DbOrTx): Promise<MemberExtras[]> {
    const { first, last } = monthBounds(month);
    return this.repository.memberTotals(first, last, db);
  }

  /** Each member's extras of a `YYYY-MM` month by item and unit price: what a close itemises on the charges. */
  monthItemsByMember(month: string, db?: DbOrTx): Promise<MemberExtraItem[]> {
    const { first, last } = monthBounds(month);
    return this.repository.memberItems(first, last, db);
  }
}
