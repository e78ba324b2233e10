import { Injectable } from '@nestjs/common';
import { and, asc, desc, eq, gt, sql, type SQL } from 'drizzle-orm';
import { Database, DbOrTx } from '../../database/database';
import { inTransaction } from '../../database/transactions';
import { textArray, uuidArray } from '../../database/sql-arrays';
import { rowsOf } from '../../database/sql-rows';
import { memberDirectory, memberNames } from '../users';
import { accountEntries, type AccountEntryRow, type NewAccountEntryRow } from './accounts.schema';
import {
  gatewayOrders,
  paymentClaims,
  paymentReferences,
  type ClaimStatus,
  type GatewayOrderRow,
  type PaymentClaimRow,
  type ReferenceSource,
} from './payments.schema';

export type ClaimWithName = PaymentClaimRow & { fullName: string };

export interface ReferenceRow {
  reference: string;
  entryId: string;
  source: ReferenceSource;
  sourceId: string;
}

/** What the statement's rows find: a claim with the row's UTR, and whether the UTR is already a payment's. */
export interface StatementLookup {
  utr: string;
  claim?: { id: string; userId: string; amountPaise: number; date: string; status: ClaimStatus };
  recorded: boolean;
}

/** The only code that queries the payment tables: claims, references recorded once, gateway orders. */
@Injectable()
export class PaymentsRepository {
  constructor(private readonly database: Database) {}

  /** One transaction, run again whole after a deadlock or a serialisation failure (`inTransaction`). */
  transaction<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
    return inTransaction(this.database.db, work);
  }

  // ---- a member's data (extension 2.3) ----

  /** A member's claims in the statement's mess, in id order after `after`, `limit` + 1 of them (the export). */
  async memberClaims(userId: string, after: string | undefined, limit: number): Promise<ClaimWithName[]> {
    const rows = await this.database.db
      .select({ claim: paymentClaims, fullName: memberDirectory.fullName })
      .from(paymentClaims)
      .innerJoin(memberDirectory, eq(memberDirectory.memberId, paymentClaims.userId))
      .where(
        and(eq(paymentClaims.userId, userId), after === undefined ? undefined : gt(paymentClaims.id, after)),
      )
      .orderBy(asc(paymentClaims.id))
      .limit(limit + 1);
    return rows.map((row) => ({ ...row.claim, fullName: row.fullName }));
  }

  /** A member's gateway orders in the statement's mess, as `memberClaims`. */
  memberOrders(userId: string, after: string | undefined, limit: number): Promise<GatewayOrderRow[]> {
    return this.database.db
      .select()
      .from(gatewayOrders)
      .where(
        and(eq(gatewayOrders.userId, userId), after === undefined ? undefined : gt(gatewayOrders.id, after)),
      )
      .orderBy(asc(gatewayOrders.id))
      .limit(limit + 1);
  }

  /** Erasure: the member's own notes on their claims in the statement's mess emptied; amounts and UTRs stay. */
  async eraseClaimNotes(tx: DbOrTx, userId: string): Promise<void> {
    await tx.update(paymentClaims).set({ note: null }).where(eq(paymentClaims.userId, userId));
  }

  // ---- claims ----

  /**
   * The new claim, or undefined when a pending or accepted claim holds its UTR in this mess (the partial unique key
   * decides between racing claims; a rejected one holds nothing).
   */
  async insertClaim(values: {
    userId: string;
    amountPaise: number;
    date: string;
    utr: string;
    note: string | null;
  }): Promise<PaymentClaimRow | undefined> {
    const [row] = await this.database.db
      .insert(paymentClaims)
      .values(values)
      .onConflictDoNothing()
      .returning();
    return row;
  }

  async findClaim(id: string, db: DbOrTx = this.database.db): Promise<ClaimWithName | undefined> {
    const [row] = await db
      .select({ claim: paymentClaims, fullName: memberDirectory.fullName })
      .from(paymentClaims)
      .innerJoin(memberDirectory, eq(memberDirectory.memberId, paymentClaims.userId))
      .where(eq(paymentClaims.id, id));
    return row && { ...row.claim, fullName: row.fullName };
  }

  /** Holds the claim until the transaction ends: two accepts (or an accept and a statement) take turns. */
  async lockClaim(tx: DbOrTx, id: string): Promise<PaymentClaimRow | undefined> {
    const [row] = await tx.select().from(paymentClaims).where(eq(paymentClaims.id, id)).for('update');
    return row;
  }

  async decideClaim(
    tx: DbOrTx,
    id: string,
    change: { status: ClaimStatus; entryId?: string; reason?: string; decidedBy: string | null },
  ): Promise<void> {
    await tx
      .update(paymentClaims)
      .set({ ...change, decidedAt: sql`now()` })
      .where(eq(paymentClaims.id, id));
  }

  async claimsPage(filter: {
    status?: ClaimStatus;
    userId?: string;
    page: number;
    limit: number;
  }): Promise<{ rows: ClaimWithName[]; total: number }> {
    const conditions: SQL[] = [];
    if (filter.status) conditions.push(eq(paymentClaims.status, filter.status));
    if (filter.userId) conditions.push(eq(paymentClaims.userId, filter.userId));
    const rows = await this.database.db
      .select({
        claim: paymentClaims,
        fullName: memberDirectory.fullName,
        total: sql<number>`count(*) over ()`.mapWith(Number),
      })
      .from(paymentClaims)
      .innerJoin(memberDirectory, eq(memberDirectory.memberId, paymentClaims.userId))
      .where(and(...conditions))
      .orderBy(desc(paymentClaims.createdAt), desc(paymentClaims.id))
      .limit(filter.limit)
      .offset((filter.page - 1) * filter.limit);
    let total = rows[0]?.total ?? 0;
    if (!rows.length && filter.page > 1) {
      const [count] = await this.database.db
        .select({ total: sql<number>`count(*)`.mapWith(Number) })
        .from(paymentClaims)
        .where(and(...conditions));
      total = count.total;
    }
    return { rows: rows.map((r) => ({ ...r.claim, fullName: r.fullName })), total };
  }

  /** Whether this reference is already a payment's in this mess: recorded once here, or a 2.1 payment's reference. */
  async referenceRecorded(reference: string, db: DbOrTx = this.database.db): Promise<boolean> {
    const result = await db.execute(sql`
      select exists (select 1 from ${paymentReferences} where ${paymentReferences.reference} = ${reference})
          or exists (select 1 from ${accountEntries} where ${accountEntries.reference} = ${reference}
                       and ${accountEntries.kind} = 'payment') as "recorded"`);
    return Boolean(rowsOf<{ recorded: boolean }>(result)[0]?.recorded);
  }

  // ---- recording once ----

  /**
   * Inserts the references (their entry ids chosen by the caller, the entries inserted after them in the same
   * transaction: the foreign key is checked at commit). Answers the ones inserted; a reference already held (or
   * held by a transaction still running, which PostgreSQL makes this wait for) is not among them.
   */
  async insertReferences(tx: DbOrTx, refs: ReferenceRow[]): Promise<Set<string>> {
    if (!refs.length) return new Set();
    const rows = await tx
      .insert(paymentReferences)
      .values(refs)
      .onConflictDoNothing()
      .returning({ reference: paymentReferences.reference });
    return new Set(rows.map((r) => r.reference));
  }

  async entryOfReference(reference: string, db: DbOrTx = this.database.db): Promise<string | undefined> {
    const [row] = await db
      .select({ entryId: paymentReferences.entryId })
      .from(paymentReferences)
      .where(eq(paymentReferences.reference, reference));
    return row?.entryId;
  }

  /**
   * The payment that already holds this reference in this mess: recorded once here, or a payment recorded by hand
   * (2.1) with it as its `reference` (the oldest not reversed).
   */
  async paymentWithReference(reference: string, db: DbOrTx = this.database.db): Promise<string | undefined> {
    const held = await this.entryOfReference(reference, db);
    if (held) return held;
    const [row] = await db
      .select({ id: accountEntries.id })
      .from(accountEntries)
      .where(
        and(
          eq(accountEntries.reference, reference),
          eq(accountEntries.kind, 'payment'),
          sql`not exists (select 1 from ${accountEntries} r where r.reverses = ${accountEntries.id})`,
        ),
      )
      .orderBy(accountEntries.seq)
      .limit(1);
    return row?.id;
  }

  async insertEntries(tx: DbOrTx, entries: NewAccountEntryRow[]): Promise<AccountEntryRow[]> {
    if (!entries.length) return [];
    return tx.insert(accountEntries).values(entries).returning();
  }

  async findEntry(id: string, db: DbOrTx = this.database.db): Promise<AccountEntryRow | undefined> {
    const [row] = await db.select().from(accountEntries).where(eq(accountEntries.id, id));
    return row;
  }

  // ---- bank statement ----

  /**
   * For every UTR of a statement at once: the live claim with it (pending or accepted, at most one by the unique key;
   * locked until the import commits; a rejected claim is none) and whether it is already a payment's reference. One
   * query over the UTRs as one array parameter.
   */
  async lookUpStatement(tx: DbOrTx, utrs: string[]): Promise<Map<string, StatementLookup>> {
    if (!utrs.length) return new Map();
    const result = await tx.execute(sql`
      with u as (select distinct unnest(${textArray(utrs)}) as utr),
      claims as (
        select c.id, c.utr, c.user_id, c.amount_paise, c.date::text as date, c.status
        from ${paymentClaims} c join u on u.utr = c.utr
        where c.status <> 'rejected'
        for update of c
      )
      select u.utr,
             claims.id as "claimId", claims.user_id as "userId", claims.amount_paise as "amountPaise",
             claims.date, claims.status,
             (exists (select 1 from ${paymentReferences} r where r.reference = u.utr)
               or exists (select 1 from ${accountEntries} e where e.reference = u.utr and e.kind = 'payment'))
               as "recorded"
      from u left join claims on claims.utr = u.utr`);
    const rows = rowsOf<{
      utr: string;
      claimId: string | null;
      userId: string;
      amountPaise: string | number;
      date: string;
      status: ClaimStatus;
      recorded: boolean;
    }>(result);
    return new Map(
      rows.map((r) => [
        r.utr,
        {
          utr: r.utr,
          recorded: Boolean(r.recorded),
          claim: r.claimId
            ? {
                id: r.claimId,
                userId: r.userId,
                amountPaise: Number(r.amountPaise),
                date: r.date,
                status: r.status,
              }
            : undefined,
        },
      ]),
    );
  }

  /** The names of these members, by id: one query, the ids one array parameter (the statement's matched lines name their members). */
  async memberNamesOf(tx: DbOrTx, ids: string[]): Promise<Map<string, string>> {
    if (!ids.length) return new Map();
    const rows = await tx
      .select({ id: memberNames.memberId, fullName: memberNames.fullName })
      .from(memberNames)
      .where(sql`${memberNames.memberId} = any(${uuidArray([...new Set(ids)])})`);
    return new Map(rows.map((r) => [r.id, r.fullName]));
  }

  /** Many claims accepted at once, each with its entry: one statement. */
  async acceptClaims(
    tx: DbOrTx,
    decided: { claimId: string; entryId: string }[],
    decidedBy: string,
  ): Promise<void> {
    if (!decided.length) return;
    await tx.execute(sql`
      update ${paymentClaims} c
         set status = 'accepted', entry_id = d.entry_id, decided_by = ${decidedBy}, decided_at = now()
        from unnest(${uuidArray(decided.map((d) => d.claimId))}, ${uuidArray(decided.map((d) => d.entryId))})
             as d(claim_id, entry_id)
       where c.id = d.claim_id`);
  }

  // ---- gateway orders ----

  async insertOrder(values: {
    userId: string;
    gatewayOrderId: string;
    amountPaise: number;
  }): Promise<GatewayOrderRow> {
    const [row] = await this.database.db.insert(gatewayOrders).values(values).returning();
    return row;
  }

  async markOrdersPaid(tx: DbOrTx, ids: string[]): Promise<void> {
    if (!ids.length) return;
    await tx
      .update(gatewayOrders)
      .set({ status: 'paid' })
      .where(sql`${gatewayOrders.id} = any(${uuidArray(ids)})`);
  }
}
