import { sql } from 'drizzle-orm';
import { FIRST_MESS_ID, inMess } from '../../src/common/tenancy/mess-scope';
import { Database } from '../../src/database/database';
import { TestApp } from '../support/app';
import { asOwner } from '../support/owner-sql';

/**
 * Issue 32, "policies as code": on a freshly migrated database, every table with a `mess_id` is sealed by row-level
 * security, forced (its owner is held to it too), with the two policies `sealedByMess` declares: the service's role
 * sees and writes the rows of the mess its statement runs in, the reader role reads them all. A table added with a
 * mess column and no `sealedByMess` fails here. The deployment's own tables name a mess without being sealed by it.
 */
const DEPLOYMENT_TABLES: Record<string, string> = {
  users: 'a member is found by email or token before any mess is known; `mess_id` is their home mess',
  gateway_events: "the gateway's inbox: an event arrives before it is routed; `mess_id` is where it was routed",
};

/**
 * Every table of the database that row-level security does not seal, by name, with why: the deployment's own, which
 * belong to no one mess (a person, the messes themselves, a term's window over several messes, what a public route
 * reads before any mess is known). A table not named here and not sealed fails the catalogue below, whatever its
 * columns: a new table is sealed by its mess or named here, with a reason, in review.
 */
const OUTSIDE_ROW_LEVEL_SECURITY: Record<string, string> = {
  'drizzle.__drizzle_migrations': 'the migrations applied: the owner writes it, the service never reads it',
  'public.email_collisions': 'accounts whose addresses collided when addresses were normalised (migration 0016)',
  'public.erasure_requests': 'a person asks to be erased, whatever messes they belonged to; an admin decides',
  'public.gateway_events': DEPLOYMENT_TABLES.gateway_events,
  'public.mess_window_allocations': "a term's window spans several messes (extension 2.3)",
  'public.mess_window_choices': "a term's window spans several messes (extension 2.3)",
  'public.mess_windows': "a term's window spans several messes (extension 2.3)",
  'public.messaging_usage': "the deployment's WhatsApp allowance, counted per month across messes",
  'public.messes': 'the messes themselves',
  'public.notification_preferences': "a person's channel and switches, kept across a move",
  'public.password_reset_tokens': 'the public forgot/reset routes act before any mess is known',
  'public.privacy_notices': "the deployment's privacy notice, one for every mess",
  'public.revoked_tokens': 'a token is refused before any mess is known',
  'public.users': DEPLOYMENT_TABLES.users,
};
/** The job queue's schema is pg-boss's own: its jobs carry their mess in their data (decision 0012). */
const QUEUE_SCHEMA = 'pgboss';

interface Sealing {
  table: string;
  rls: boolean;
  forced: boolean;
}

interface Policy {
  table: string;
  policy: string;
  roles: string;
  cmd: string;
  qual: string | null;
  check: string | null;
}

describe('Every mess table is sealed by row-level security (a freshly migrated database)', () => {
  let t: TestApp;
  let database: Database;

  beforeAll(async () => {
    t = await TestApp.start();
    database = t.app.get(Database);
  });
  afterAll(() => t?.close());

  const rows = async <T>(statement: string): Promise<T[]> => (await asOwner(database, statement)).rows as T[];

  it('forces row-level security on every table with a mess_id, with its one-mess and every-mess policies', async () => {
    const tables = await rows<Sealing>(`
      select c.relname as "table", c.relrowsecurity as rls, c.relforcerowsecurity as forced
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p')
        and exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'mess_id' and not a.attisdropped)
      order by 1`);
    const policies = await rows<Policy>(`
      select tablename as "table", policyname as policy, array_to_string(roles, ',') as roles, cmd,
             qual, with_check as check
      from pg_policies where schemaname = 'public' order by 1, 2`);
    const sealed = tables.filter((row) => !(row.table in DEPLOYMENT_TABLES));
    // The tables of 2.2 at least, so a query that finds nothing cannot pass.
    expect(sealed.map((row) => row.table)).toEqual(
      expect.arrayContaining(['attendance', 'expenses', 'account_entries', 'notifications', 'audit_events']),
    );
    expect(sealed.length).toBeGreaterThanOrEqual(22);
    const problems: string[] = [];
    for (const { table, rls, forced } of sealed) {
      if (!rls) problems.push(`${table}: row-level security not enabled`);
      if (!forced) problems.push(`${table}: row-level security not forced`);
      const own = policies.filter((p) => p.table === table);
      const one = own.find((p) => p.policy === `${table}_one_mess`);
      if (!one) problems.push(`${table}: no ${table}_one_mess policy`);
      else {
        if (one.roles !== 'mess_app' || one.cmd !== 'ALL') problems.push(`${table}_one_mess: ${one.roles} ${one.cmd}`);
        for (const [part, expression] of [
          ['using', one.qual],
          ['with check', one.check],
        ] as const) {
          if (!/mess_id = \(?current_setting\('app\.mess'::text\)\)?::uuid/.test(expression ?? ''))
            problems.push(`${table}_one_mess ${part}: ${expression}`);
        }
      }
      const every = own.find((p) => p.policy === `${table}_every_mess`);
      if (!every) problems.push(`${table}: no ${table}_every_mess policy`);
      else if (every.roles !== 'mess_reader' || every.cmd !== 'SELECT' || every.qual !== 'true')
        problems.push(`${table}_every_mess: ${every.roles} ${every.cmd} ${every.qual}`);
      const others = own.filter((p) => p.policy !== `${table}_one_mess` && p.policy !== `${table}_every_mess`);
      if (others.length) problems.push(`${table}: other policies ${others.map((p) => p.policy).join(', ')}`);
    }
    expect(problems).toEqual([]);
    // The deployment's tables are the documented ones, and still there.
    expect(tables.filter((row) => row.table in DEPLOYMENT_TABLES).map((row) => row.table)).toEqual(
      Object.keys(DEPLOYMENT_TABLES).sort(),
    );
  });

  it('names every table that row-level security does not seal, and finds no other', async () => {
    const open = await rows<{ table: string }>(`
      select n.nspname || '.' || c.relname as "table"
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'p') and not c.relispartition and not c.relrowsecurity
        and n.nspname not in ('pg_catalog', 'information_schema', '${QUEUE_SCHEMA}') and n.nspname not like 'pg\\_%'
      order by 1`);
    expect(open.map((row) => row.table)).toEqual(Object.keys(OUTSIDE_ROW_LEVEL_SECURITY).sort());
  });

  it('refuses a statement on a mess table outside a mess, and answers it inside one', async () => {
    const count = () => database.db.execute(sql`select count(*)::int as n from expenses`);
    // No mess: `app.mess` is empty, and the policy (and the column's default) read it with no fallback.
    const noMess = { cause: expect.objectContaining({ message: 'invalid input syntax for type uuid: ""' }) };
    await expect(count()).rejects.toMatchObject(noMess);
    await expect(
      database.db.execute(
        sql`insert into expenses (category, amount_paise, date) values ('Gas', 100, '2030-01-01')`,
      ),
    ).rejects.toMatchObject(noMess);
    const inside = await inMess(FIRST_MESS_ID, count);
    expect((inside as unknown as { rows: { n: number }[] }).rows[0].n).toBe(0);
    // And once more outside, on the connection that has just been in a mess: still refused.
    await expect(count()).rejects.toMatchObject(noMess);
  });
});
