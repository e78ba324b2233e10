import { Injectable } from '@nestjs/common';
import { and, asc, count, eq, ilike, inArray, ne, or, sql, SQL } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import { MESS_SETTING } from '../../common/tenancy/mess-scope';
import { Database } from '../../database/database';
import { isAnyUuid } from '../../database/sql-arrays';
import type { RosterFilter } from './users.repository';
import { type Role, type UserRow, users, type UserStatus } from './users.schema';

/**
 * The members of the mess the statement runs in: `users` where `mess_id` is the connection's `app.mess`, the setting
 * row-level security reads, which the database layer sets to the running code's mess before each statement (and to
 * nothing outside one, where this fails: `''::uuid` is an error). PostgreSQL flattens the subquery: the plan is the
 * filtered scan. A person is the deployment's (one address, one login); belonging is `mess_id`.
 */
const membersHere = new QueryBuilder()
  .select()
  .from(users)
  .where(sql`${users.messId} = current_setting('${sql.raw(MESS_SETTING)}')::uuid`)
  .as('members_here');

/**
 * The one guarded path to the users of a mess (issue 47): every read of a mess's members (its roster, its diners, its
 * approved, the standings of ids in it) is here, and every query of this class reads `membersHere`, never the table,
 * so none can forget the mess. Reads of a person by id, email or identity-provider subject (the deployment's: a
 * login, a token's holder, a move) and the admins' list across messes stay in UsersRepository.
 */
@Injectable()
export class MessMembersRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  async findStatusesByIds(ids: string[]): Promise<Map<string, UserStatus>> {
    if (!ids.length) return new Map();
    const rows = await this.db
      .select({ id: membersHere.id, status: membersHere.status })
      .from(membersHere)
      .where(isAnyUuid(membersHere.id, ids));
    return new Map(rows.map((r) => [r.id, r.status]));
  }

  /** Status and whether each member dines, by id, in one query. */
  async findStandingsByIds(ids: string[]): Promise<Map<string, { status: UserStatus; dines: boolean }>> {
    if (!ids.length) return new Map();
    const rows = await this.db
      .select({ id: membersHere.id, status: membersHere.status, dines: membersHere.dines })
      .from(membersHere)
      .where(isAnyUuid(membersHere.id, ids));
    return new Map(rows.map((r) => [r.id, { status: r.status, dines: r.dines }]));
  }

  /** Approved members who dine: the membership the mess cooks for and bills. */
  async countDiners(): Promise<number> {
    const [{ n }] = await this.db
      .select({ n: count() })
      .from(membersHere)
      .where(and(eq(membersHere.status, 'approved'), eq(membersHere.dines, true)));
    return n;
  }

  async dinerIds(): Promise<string[]> {
    const rows = await this.db
      .select({ id: membersHere.id })
      .from(membersHere)
      .where(and(eq(membersHere.status, 'approved'), eq(membersHere.dines, true)));
    return rows.map((r) => r.id);
  }

  async dinersWithCreation(): Promise<{ id: string; createdAt: Date }[]> {
    return this.db
      .select({ id: membersHere.id, createdAt: membersHere.createdAt })
      .from(membersHere)
      .where(and(eq(membersHere.status, 'approved'), eq(membersHere.dines, true)));
  }

  /** The roster: the request's mess's members, filtered, by name; with the count of all that match. */
  async roster(filter: RosterFilter): Promise<{ rows: UserRow[]; total: number }> {
    // Erased members (extension 2.3) are on no roster.
    const conditions: SQL[] = [ne(membersHere.status, 'erased')];
    if (filter.status) conditions.push(eq(membersHere.status, filter.status));
    if (filter.role) conditions.push(eq(membersHere.role, filter.role));
    if (filter.dines !== undefined) conditions.push(eq(membersHere.dines, filter.dines));
    if (filter.search) {
      const pattern = `%${filter.search.replace(/[\\%_]/g, '\\$&')}%`;
      conditions.push(or(ilike(membersHere.fullName, pattern), ilike(membersHere.room, pattern))!);
    }
    const where = and(...conditions);
    const [rows, [{ total }]] = await Promise.all([
      this.db
        .select()
        .from(membersHere)
        .where(where)
        .orderBy(asc(membersHere.fullName), asc(membersHere.id))
        .limit(filter.limit)
        .offset(filter.offset),
      this.db.select({ total: count() }).from(membersHere).where(where),
    ]);
    return { rows, total };
  }

  /** Approved members, all of them or those with one of `roles`, oldest first. */
  async listApproved(roles?: Role[]): Promise<UserRow[]> {
    const approved = eq(membersHere.status, 'approved');
    return this.db
      .select()
      .from(membersHere)
      .where(roles ? and(approved, inArray(membersHere.role, roles)) : approved)
      .orderBy(asc(membersHere.createdAt), asc(membersHere.id));
  }

  async countByStatus(status: UserStatus): Promise<number> {
    const [{ n }] = await this.db
      .select({ n: count() })
      .from(membersHere)
      .where(eq(membersHere.status, status));
    return n;
  }
}
