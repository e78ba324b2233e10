import { Injectable } from '@nestjs/common';
import { and, asc, desc, eq, gt, sql, type SQL } from 'drizzle-orm';
import { alias, union } from 'drizzle-orm/pg-core';
import { currentMessId } from '../../common/tenancy/mess-scope';
import { Database, DbOrTx } from '../../database/database';
import { inTransaction } from '../../database/transactions';
import { uuidArray } from '../../database/sql-arrays';
import { memberDirectory } from '../users';
import {
  accountBalances,
  accountEntries,
  idempotentRequests,
  type AccountEntryRow,
  type NewAccountEntryRow,
} from './accounts.schema';

export type BalanceStatus = 'due' | 'credit' | 'settled';

export interface AccountRow {
  userId: string;
  fullName: string;
  balancePaise: number;
  lastPaymentAt: string | null;
}

export interface IdempotentRequestRow {
  fingerprint: string;
  status: number;
  response: unknown;
}

/** Σ debits − Σ credits of the entries in scope, in paise. */
const signedSum = sql<number>`coalesce(sum(case when ${accountEntries.direction} = 'debit' then ${accountEntries.amountPaise} else -${accountEntries.amountPaise} end), 0)`;

const reversals = alias(accountEntries, 'reversals');

/** The only code that queries the accounts tables. */
@Injectable()
export class AccountsRepository {
  constructor(private readonly database: Database) {}

  /**
   * Erasure (extension 2.3, decision 0010), in its transaction, in the mess it acts in: the notes of the member's
   * entries that came from their claims (their own text) or hold one of their values, and any note naming them,
   * emptied by the one function that may (migration `…_ledger_sealed`: it runs as the tables' owner, reads the
   * person's values from their row and refuses a mess that was never theirs; the service's role may not update the
   * ledger). Amounts, dates and kinds never change.
   */
  async eraseNotes(tx: DbOrTx, userId: string): Promise<void> {
    await tx.execute(sql`select erase_ledger_notes(${userId}::uuid)`);
  }

  /** A member's entries in the statement's mess, in id order after `after`, `limit` + 1 of them (the export). */
  memberPage(userId: string, after: string | undefined, limit: number): Promise<AccountEntryRow[]> {
    return this.database.db
      .select()
      .from(accountEntries)
      .where(
        and(
          eq(accountEntries.userId, userId),
          after === undefined ? undefined : gt(accountEntries.id, after),
        ),
      )
      .orderBy(asc(accountEntries.id))
      .limit(limit + 1);
  }

  /** One transaction, run again whole after a deadlock or a serialisation failure (`inTransaction`). */
  transaction<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
    return inTransaction(this.database.db, work);
  }

  async insert(tx: DbOrTx, entry: NewAccountEntryRow): Promise<AccountEntryRow> {
    const [row] = await tx.insert(accountEntries).values(entry).returning();
    return row;
  }

  /** Many entries in one statement (a month's charges or their reversals). */
  async insertMany(tx: DbOrTx, entries: NewAccountEntryRow[]): Promise<number> {
    if (!entries.length) return 0;
    const rows = await tx.insert(accountEntries).values(entries).returning({ id: accountEntries.id });
    return rows.length;
  }

  async find(id: string, db: DbOrTx = this.database.db): Promise<AccountEntryRow | undefined> {
    const [row] = await db.select().from(accountEntries).where(eq(accountEntries.id, id));
    return row;
  }

  async reversalOf(id: string, db: DbOrTx = this.database.db): Promise<AccountEntryRow | undefined> {
    const [row] = await db.select().from(accountEntries).where(eq(accountEntries.reverses, id));
    return row;
  }

  async hasOpening(userId: string, db: DbOrTx = this.database.db): Promise<boolean> {
    const [row] = await db
      .select({ id: accountEntries.id })
      .from(accountEntries)
      .where(and(eq(accountEntries.userId, userId), eq(accountEntries.kind, 'opening')))
      .limit(1);
    return Boolean(row);
  }

  /** The month's charges that no reversal has undone yet: what a reopen reverses. */
  async standingCharges(tx: DbOrTx, month: string): Promise<AccountEntryRow[]> {
    return tx
      .select()
      .from(accountEntries)
      .where(
        and(
          eq(accountEntries.month, month),
          eq(accountEntries.kind, 'charge'),
          sql`not exists (select 1 from ${accountEntries} r where r.reverses = ${accountEntries.id})`,
        ),
      )
      .orderBy(asc(accountEntries.seq));
  }

  /**
   * The name of the holder of an account of this mess: a member who belongs to the mess now, or anyone with entries
   * in it (a former member who may still owe it; row-level security shows this mess's entries only). Undefined for
   * anyone else, a member of another mess included (extension 2.2: their account is not this mess's to read or
   * write).
   */
  async holderName(userId: string, db: DbOrTx = this.database.db): Promise<string | undefined> {
    const [row] = await db
      .select({ fullName: memberDirectory.fullName })
      .from(memberDirectory)
      .where(
        and(
          eq(memberDirectory.memberId, userId),
          sql`(${memberDirectory.messId} = ${currentMessId()} or exists (select 1 from ${accountEntries} where ${accountEntries.userId} = ${memberDirectory.memberId}))`,
        ),
      );
    return row?.fullName;
  }

  async balanceOf(userId: string, db: DbOrTx = this.database.db): Promise<number> {
    return (await this.balancesOf([userId], db)).get(userId) ?? 0;
  }

  /** The balance of each of these members (paise), in one query; a member without entries is absent. */
  async balancesOf(userIds: string[], db: DbOrTx = this.database.db): Promise<Map<string, number>> {
    if (!userIds.length) return new Map();
    const rows = await db
      .select({ userId: accountEntries.userId, balance: signedSum.mapWith(Number) })
      .from(accountEntries)
      .where(sql`${accountEntries.userId} = any(${uuidArray([...new Set(userIds)])})`)
      .groupBy(accountEntries.userId);
    return new Map(rows.map((r) => [r.userId, r.balance]));
  }

  /** A member's entries newest first (date, then order of recording), one page, and how many there are. */
  async entriesPage(
    userId: string,
    page: number,
    limit: number,
  ): Promise<{ rows: AccountEntryRow[]; total: number }> {
    const db = this.database.db;
    const rows = await db
      .select()
      .from(accountEntries)
      .where(eq(accountEntries.userId, userId))
      .orderBy(desc(accountEntries.date), desc(accountEntries.seq))
      .limit(limit)
      .offset((page - 1) * limit);
    const [{ total }] = await db
      .select({ total: sql<number>`count(*)`.mapWith(Number) })
      .from(accountEntries)
      .where(eq(accountEntries.userId, userId));
    return { rows, total };
  }

  /** The balance of the entries dated before `from`, and the entries from `from` to `to` in statement order. */
  async statement(
    userId: string,
    from: string,
    to: string,
  ): Promise<{ openingPaise: number; rows: AccountEntryRow[] }> {
    const db = this.database.db;
    // One transaction: the opening and the entries are one snapshot of the account.
    return db.transaction(async (tx) => {
      const [opening] = await tx
        .select({ balance: signedSum.mapWith(Number) })
        .from(accountEntries)
        .where(and(eq(accountEntries.userId, userId), sql`${accountEntries.date} < ${from}`));
      const rows = await tx
        .select()
        .from(accountEntries)
        .where(and(eq(accountEntries.userId, userId), sql`${accountEntries.date} between ${from} and ${to}`))
        .orderBy(asc(accountEntries.date), asc(accountEntries.seq));
      return { openingPaise: opening.balance, rows };
    });
  }

  /**
   * The accounts list: every approved member and anyone else with entries (never an erased member), with balance and the date of the latest
   * payment not reversed, largest due first; one page, how many match, and the due and credit totals of them all.
   */
  async accounts(
    status: BalanceStatus | undefined,
    page: number,
    limit: number,
  ): Promise<{ rows: AccountRow[]; total: number; duePaise: number; creditPaise: number }> {
    const balances = this.database.db
      .select({
        userId: accountEntries.userId,
        balance: signedSum.as('balance'),
        lastPaymentAt: sql<
          string | null
        >`max(${accountEntries.date}) filter (where ${accountEntries.kind} = 'payment' and ${reversals.id} is null)`.as(
          'last_payment_at',
        ),
      })
      .from(accountEntries)
      .leftJoin(reversals, eq(reversals.reverses, accountEntries.id))
      .groupBy(accountEntries.userId)
      .as('balances');
    // Who is listed: the mess's approved members (through the users index by mess) and whoever has entries in it
    // (row-level security keeps those to the mess): two indexed reads, not a pass over every user of the university.
    const listed = union(
      this.database.db
        .select({ id: memberDirectory.memberId })
        .from(memberDirectory)
        .where(and(eq(memberDirectory.messId, currentMessId()), memberDirectory.approved)),
      this.database.db.select({ id: accountEntries.userId }).from(accountEntries),
    ).as('listed');
    const balance = sql<number>`coalesce(${balances.balance}, 0)`;
    // An erased member is in no list of dues (extension 2.3), whatever their entries.
    const filters: SQL[] = [sql`not ${memberDirectory.erased}`];
    if (status === 'due') filters.push(sql`${balance} > 0`);
    if (status === 'credit') filters.push(sql`${balance} < 0`);
    if (status === 'settled') filters.push(sql`${balance} = 0`);
    const rows = await this.database.db
      .select({
        userId: memberDirectory.memberId,
        fullName: memberDirectory.fullName,
        balancePaise: balance.mapWith(Number),
        lastPaymentAt: balances.lastPaymentAt,
        total: sql<number>`count(*) over ()`.mapWith(Number),
        duePaise: sql<number>`coalesce(sum(greatest(${balance}, 0)) over (), 0)`.mapWith(Number),
        creditPaise: sql<number>`coalesce(sum(greatest(-${balance}, 0)) over (), 0)`.mapWith(Number),
      })
      .from(listed)
      .innerJoin(memberDirectory, eq(memberDirectory.memberId, listed.id))
      .leftJoin(balances, eq(balances.userId, memberDirectory.memberId))
      .where(and(...filters))
      .orderBy(sql`${balance} desc`, asc(memberDirectory.fullName), asc(memberDirectory.memberId))
      .limit(limit)
      .offset((page - 1) * limit);
    if (rows.length || page === 1) {
      const first = rows[0];
      return {
        rows: rows.map(({ userId, fullName, balancePaise, lastPaymentAt }) => ({
          userId,
          fullName,
          balancePaise,
          lastPaymentAt,
        })),
        total: first?.total ?? 0,
        duePaise: first?.duePaise ?? 0,
        creditPaise: first?.creditPaise ?? 0,
      };
    }
    // Past the last page: the totals still cover every matching account.
    const all = await this.accounts(status, 1, 1);
    return { ...all, rows: [] };
  }

  /** Members whose balance is due (> 0), with what they owe. */
  async dueBalances(): Promise<{ userId: string; balancePaise: number }[]> {
    return this.database.db
      .select({ userId: accountBalances.userId, balancePaise: accountBalances.balancePaise })
      .from(accountBalances)
      .where(gt(accountBalances.balancePaise, 0));
  }

  /**
   * What the members of every mess owe it now (the positive balances added), by mess id, in one grouped read across
   * messes: the university's view. A mess where nobody owes anything is absent.
   */
  async duePerMess(): Promise<Map<string, number>> {
    const rows = await this.database.acrossMesses((tx) =>
      tx
        .select({
          messId: accountBalances.messId,
          duePaise: sql<number>`sum(${accountBalances.balancePaise})`.mapWith(Number),
        })
        .from(accountBalances)
        .where(gt(accountBalances.balancePaise, 0))
        .groupBy(accountBalances.messId),
    );
    return new Map(rows.map((r) => [r.messId, r.duePaise]));
  }

  // ---- Idempotency-Key ----

  /**
   * Claims the key for this request inside `tx`; true when it is ours. When another request holds it, PostgreSQL
   * makes this insert wait for that transaction: after its commit the key is taken (false, replay its answer),
   * after its rollback the key is ours.
   */
  async claimKey(
    tx: DbOrTx,
    scope: { callerId: string; route: string; key: string; fingerprint: string },
  ): Promise<boolean> {
    const rows = await tx
      .insert(idempotentRequests)
      .values({ ...scope, status: 0, response: {} })
      .onConflictDoNothing()
      .returning({ id: idempotentRequests.id });
    return rows.length > 0;
  }

  async saveAnswer(
    tx: DbOrTx,
    scope: { callerId: string; route: string; key: string },
    status: number,
    response: unknown,
  ): Promise<void> {
    await tx
      .update(idempotentRequests)
      .set({ status, response })
      .where(
        and(
          eq(idempotentRequests.callerId, scope.callerId),
          eq(idempotentRequests.route, scope.route),
          eq(idempotentRequests.key, scope.key),
        ),
      );
  }

  async findKey(
    tx: DbOrTx,
    scope: { callerId: string; route: string; key: string },
  ): Promise<IdempotentRequestRow | undefined> {
    const [row] = await tx
      .select({
        fingerprint: idempotentRequests.fingerprint,
        status: idempotentRequests.status,
        response: idempotentRequests.response,
      })
      .from(idempotentRequests)
      .where(
        and(
          eq(idempotentRequests.callerId, scope.callerId),
          eq(idempotentRequests.route, scope.route),
          eq(idempotentRequests.key, scope.key),
        ),
      );
    return row;
  }
}
