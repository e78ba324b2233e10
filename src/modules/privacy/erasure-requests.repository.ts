import { Injectable } from '@nestjs/common';
import { and, desc, eq } from 'drizzle-orm';
import { Database, type DbOrTx } from '../../database/database';
import { memberNames } from '../users';
import { type ErasureRequestRow, type ErasureRequestStatus, erasureRequests } from './privacy.schema';

export type ErasureRequestWithName = ErasureRequestRow & { fullName: string };

/** The only code that queries `erasure_requests`. */
@Injectable()
export class ErasureRequestsRepository {
  constructor(private readonly database: Database) {}

  /** The new pending request, or undefined when the member has one pending (the partial unique key decides). */
  async insertPending(userId: string, reason: string): Promise<ErasureRequestRow | undefined> {
    const [row] = await this.database.db
      .insert(erasureRequests)
      .values({ userId, reason })
      .onConflictDoNothing()
      .returning();
    return row;
  }

  /** Newest first, with the member's name as it is now (the pseudonym once erased). */
  async list(status?: ErasureRequestStatus): Promise<ErasureRequestWithName[]> {
    const rows = await this.database.db
      .select({ request: erasureRequests, fullName: memberNames.fullName })
      .from(erasureRequests)
      .innerJoin(memberNames, eq(memberNames.memberId, erasureRequests.userId))
      .where(status ? eq(erasureRequests.status, status) : undefined)
      .orderBy(desc(erasureRequests.createdAt), desc(erasureRequests.id))
      .limit(1000);
    return rows.map((r) => ({ ...r.request, fullName: r.fullName }));
  }

  /** The member's requests, oldest first (their export). */
  ofMember(userId: string): Promise<ErasureRequestRow[]> {
    return this.database.db
      .select()
      .from(erasureRequests)
      .where(eq(erasureRequests.userId, userId))
      .orderBy(erasureRequests.createdAt);
  }

  /** In the erasure's transaction: every request of the member `done`, its reason (their own text) emptied. */
  async completeFor(tx: DbOrTx, userId: string, decidedBy: string): Promise<void> {
    await tx.update(erasureRequests).set({ reason: '' }).where(eq(erasureRequests.userId, userId));
    await tx
      .update(erasureRequests)
      .set({ status: 'done', decidedAt: new Date(), decidedBy })
      .where(and(eq(erasureRequests.userId, userId), eq(erasureRequests.status, 'pending')));
  }
}
