import { Injectable } from '@nestjs/common';
import type { DbOrTx } from '../../database/database';
import { BillingRepository } from './billing.repository';

/**
 * What billing holds of a member beyond ids and figures: their name in each closed month's frozen bill. (The month
 * cache is dropped after the erasure commits, by its `member.changed`.)
 */
@Injectable()
export class BillingMemberData {
  constructor(private readonly repository: BillingRepository) {}

  /** In the erasure's transaction, in each mess of the member: their frozen name becomes the pseudonym. */
  erase(tx: DbOrTx, userId: string, pseudonym: string): Promise<void> {
    return this.repository.renameInClosures(tx, userId, pseudonym);
  }
}
