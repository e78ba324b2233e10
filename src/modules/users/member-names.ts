import { sql } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import { MESS_SETTING } from '../../common/tenancy/mess-scope';
import { users } from './users.schema';

/**
 * The users module's read-side relation for other modules' queries: a member's id and name, nothing else. Lists
 * that nest `{_id, fullName}` and the monthly bill join this instead of the `users` table, so they stay one query
 * while the users module alone owns what its table holds (PostgreSQL flattens the subquery: the plan is the join).
 */
export const memberNames = new QueryBuilder()
  .select({ memberId: users.id, fullName: users.fullName })
  .from(users)
  .as('member_names');

/**
 * Every member with an account to show: id, name, whether they are an approved member now of the mess the statement
 * runs for (the accounts list shows those, and anyone else who has entries in the mess, which row-level security
 * keeps to it) and whether they are erased (listed nowhere). `users` is not under row-level security, so the mess is
 * named here, as that security names it: the connection's `app.mess`. With the mess they belong to now. Read-only,
 * like `memberNames`.
 */
export const memberDirectory = new QueryBuilder()
  .select({
    memberId: users.id,
    fullName: users.fullName,
    messId: users.messId,
    approved:
      sql<boolean>`${users.status} = 'approved' and ${users.messId} = current_setting('${sql.raw(MESS_SETTING)}')::uuid`.as(
        'approved',
      ),
    /** Erased (extension 2.3): kept for the books, in no list. */
    erased: sql<boolean>`${users.status} = 'erased'`.as('erased'),
  })
  .from(users)
  .as('member_directory');

/**
 * Auth's read of a token's holder (on every authenticated request the token-holder cache misses) and of a reset
 * link's member: who they are now, their mess and their token version, nothing else, read-only. Auth's one prepared
 * statement joins its own revoked tokens to this (one round trip), so the `users` table itself stays this module's.
 */
export const tokenHolders = new QueryBuilder()
  .select({
    id: users.id,
    email: users.email,
    fullName: users.fullName,
    role: users.role,
    status: users.status,
    messId: users.messId,
    tokenVersion: users.tokenVersion,
  })
  .from(users)
  .as('token_holders');
