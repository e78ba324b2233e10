import { Injectable } from '@nestjs/common';
import { and, asc, count, desc, eq, ne, sql, SQL } from 'drizzle-orm';
import { Database, DbOrTx } from '../../database/database';
import { inTransaction } from '../../database/transactions';
import { NewUserRow, Role, UserRow, users, UserStatus, emailCollisions } from './users.schema';
import { isAnyUuid } from '../../database/sql-arrays';

export interface RosterFilter {
  status?: UserStatus;
  role?: Role;
  dines?: boolean;
  /** Part of a name or a room, ignoring case. */
  search?: string;
  limit: number;
  offset: number;
}

export interface UserListFilter {
  /** Only this mess's members; left out: every mess. */
  messId?: string;
  status?: UserStatus;
  role?: Role;
  limit: number;
  offset: number;
}

/** The only code that queries `users`. */

@Injectable()
export class UsersRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  async findById(id: string): Promise<UserRow | undefined> {
    const [row] = await this.db.select().from(users).where(eq(users.id, id)).limit(1);
    return row;
  }

  async findByEmail(email: string): Promise<UserRow | undefined> {
    const [row] = await this.db.select().from(users).where(eq(users.email, email)).limit(1);
    return row;
  }

  async findByIdpId(idpId: string): Promise<UserRow | undefined> {
    const [row] = await this.db.select().from(users).where(eq(users.idpId, idpId)).limit(1);
    return row;
  }

  async findNamesByIds(ids: string[], db: DbOrTx = this.db): Promise<Map<string, string>> {
    if (!ids.length) return new Map();
    const rows = await db
      .select({ id: users.id, fullName: users.fullName })
      .from(users)
      .where(isAnyUuid(users.id, ids));
    return new Map(rows.map((r) => [r.id, r.fullName]));
  }

  /** Every mess's diners at once (the university's view): one grouped read across messes. */
  async dinersPerMess(): Promise<Map<string, number>> {
    const rows = await this.database.acrossMesses((tx) =>
      tx
        .select({ messId: users.messId, n: count() })
        .from(users)
        .where(and(eq(users.status, 'approved'), eq(users.dines, true)))
        .groupBy(users.messId),
    );
    return new Map(rows.map((r) => [r.messId, r.n]));
  }

  async list(filter: UserListFilter): Promise<{ rows: UserRow[]; total: number }> {
    const conditions: SQL[] = [];
    if (filter.messId) conditions.push(eq(users.messId, filter.messId));
    // Erased members (extension 2.3) only when asked for by their status.
    conditions.push(filter.status ? eq(users.status, filter.status) : ne(users.status, 'erased'));
    if (filter.role) conditions.push(eq(users.role, filter.role));
    const where = and(...conditions);
    const [rows, [{ total }]] = await Promise.all([
      this.db
        .select()
        .from(users)
        .where(where)
        .orderBy(desc(users.createdAt), asc(users.id))
        .limit(filter.limit)
        .offset(filter.offset),
      this.db.select({ total: count() }).from(users).where(where),
    ]);
    return { rows, total };
  }

  async insert(values: NewUserRow, db: DbOrTx = this.db): Promise<UserRow> {
    const [row] = await db.insert(users).values(values).returning();
    return row;
  }

  async update(id: string, values: Partial<NewUserRow>, db: DbOrTx = this.db): Promise<UserRow | undefined> {
    const [row] = await db
      .update(users)
      .set({ ...values, updatedAt: new Date() })
      .where(eq(users.id, id))
      .returning();
    return row;
  }

  /** Sets fields and ends every token issued so far, in one statement. */
  async updateAndRevokeTokens(
    id: string,
    values: Partial<NewUserRow>,
    db: DbOrTx = this.db,
  ): Promise<UserRow | undefined> {
    const [row] = await db
      .update(users)
      .set({ ...values, tokenVersion: sql`${users.tokenVersion} + 1`, updatedAt: new Date() })
      .where(eq(users.id, id))
      .returning();
    return row;
  }

  /** One transaction, run again whole after a deadlock or a serialisation failure (`inTransaction`). */
  transaction<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
    return inTransaction(this.db, work);
  }

  /**
   * In the caller's transaction, locks a member's row for a change of status or role and returns it as it is now.
   * With `approvedAdmins`, first locks every approved admin's row (FOR UPDATE, in id order, so two callers queue
   * instead of deadlocking) and returns their ids: two admins demoting or rejecting each other at once are then
   * serialised, and the second sees the first's change.
   */
  async lockForChange(
    tx: DbOrTx,
    id: string,
    options: { approvedAdmins: boolean },
  ): Promise<{ member: UserRow | undefined; approvedAdminIds: string[] }> {
    const admins = options.approvedAdmins
      ? await tx
          .select({ id: users.id })
          .from(users)
          .where(and(eq(users.role, 'admin'), eq(users.status, 'approved')))
          .orderBy(asc(users.id))
          .for('update')
      : [];
    const [member] = await tx.select().from(users).where(eq(users.id, id)).for('update');
    return { member, approvedAdminIds: admins.map((a) => a.id) };
  }

  /** In the caller's transaction, locks these members' rows (in id order: two batches queue, never deadlock). */
  async lockMany(tx: DbOrTx, ids: string[]): Promise<UserRow[]> {
    return tx.select().from(users).where(isAnyUuid(users.id, ids)).orderBy(asc(users.id)).for('update');
  }

  /** The mess of each of these members (those that exist), unlocked: which mess rows to lock before theirs. */
  async messesOf(ids: string[], tx: DbOrTx): Promise<{ id: string; messId: string }[]> {
    return tx.select({ id: users.id, messId: users.messId }).from(users).where(isAnyUuid(users.id, ids));
  }

  /** Approves these members in one statement; returns them as they are now. */
  async approveAll(ids: string[], tx: DbOrTx): Promise<UserRow[]> {
    if (!ids.length) return [];
    return tx
      .update(users)
      .set({ status: 'approved', updatedAt: new Date() })
      .where(isAnyUuid(users.id, ids))
      .returning();
  }

  /** Approved members of every mess now, by mess id (a mess without any is absent), in `db`. */
  async approvedPerMess(db: DbOrTx = this.db): Promise<Map<string, number>> {
    const rows = await db
      .select({ messId: users.messId, n: count() })
      .from(users)
      .where(eq(users.status, 'approved'))
      .groupBy(users.messId);
    return new Map(rows.map((r) => [r.messId, r.n]));
  }

  /** These members (those that exist), in `db`. */
  async findByIds(ids: string[], db: DbOrTx = this.db): Promise<UserRow[]> {
    if (!ids.length) return [];
    return db.select().from(users).where(isAnyUuid(users.id, ids));
  }

  /** Approved members of a mess now (its capacity counts them), in the caller's transaction. */
  async countApprovedIn(messId: string, tx: DbOrTx): Promise<number> {
    const [{ n }] = await tx
      .select({ n: count() })
      .from(users)
      .where(and(eq(users.messId, messId), eq(users.status, 'approved')));
    return n;
  }

  /** Approved members now of each of these messes, by mess id (a mess without any is absent), in `tx`. */
  async approvedIn(messIds: string[], tx: DbOrTx): Promise<Map<string, number>> {
    if (!messIds.length) return new Map();
    const rows = await tx
      .select({ messId: users.messId, n: count() })
      .from(users)
      .where(and(isAnyUuid(users.messId, messIds), eq(users.status, 'approved')))
      .groupBy(users.messId);
    return new Map(rows.map((r) => [r.messId, r.n]));
  }

  /** Moves members to a mess; returns them as they are now. */
  async setMess(ids: string[], messId: string, tx: DbOrTx): Promise<UserRow[]> {
    if (!ids.length) return [];
    return tx
      .update(users)
      .set({ messId, updatedAt: new Date() })
      .where(isAnyUuid(users.id, ids))
      .returning();
  }

  async countByRoleAndStatus(role: Role, status: UserStatus): Promise<number> {
    const [{ n }] = await this.db
      .select({ n: count() })
      .from(users)
      .where(and(eq(users.role, role), eq(users.status, status)));
    return n;
  }

  /** Accounts left with their old spelling because another account holds the normalized one (migration 0016). */
  async emailCollisions(): Promise<{ userId: string; collidesWith: string }[]> {
    return this.db
      .select({ userId: emailCollisions.userId, collidesWith: emailCollisions.collidesWith })
      .from(emailCollisions)
      .orderBy(emailCollisions.foundAt, emailCollisions.userId);
  }
}
