import { sql } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
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
 * Every member with an account to show: id, name, whether they are an approved member of the mess the request
 * acts in now (the accounts list shows those, and anyone else who has entries in that mess, such as a former member
 * who still owes it), and the mess they belong to now. Read-only, like `memberNames`.
 */
export const memberDirectory = new QueryBuilder()
  .select({
    memberId: users.id,
    fullName: users.fullName,
    approved:
      sql<boolean>`(${users.status} = 'approved' and ${users.messId} = current_setting('app.mess')::uuid)`.as(
        'approved',
      ),
    messId: users.messId,
  })
  .from(users)
  .as('member_directory');
