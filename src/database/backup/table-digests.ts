import type { PGlite } from '@electric-sql/pglite';
import { createHash } from 'node:crypto';

/** One table's rows as a backup's verification compares them: how many, and a digest of their content. */
export interface TableDigest {
  rows: number;
  sha256: string;
}

/** Every table of the database (`schema.table`: the service's, the migrations' record, the job queue's). */
export type TableDigests = Record<string, TableDigest>;

/** Session settings the text form of a row depends on, fixed so that every session writes the same text. */
const FIXED_TEXT_FORM =
  "set local timezone to 'UTC'; set local datestyle to 'ISO, YMD'; set local intervalstyle to 'postgres'; " +
  "set local extra_float_digits to 1; set local bytea_output to 'hex'; set local transaction read only";

type Tx = Parameters<Parameters<PGlite['transaction']>[0]>[0];

/** Every table of the database, `schema.table` quoted for SQL and as named in the digests. */
async function everyTable(tx: Tx): Promise<{ name: string; sql: string }[]> {
  const { rows } = await tx.query<{ schema: string; name: string }>(
    `select n.nspname as schema, c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind = 'r' and n.nspname not in ('pg_catalog', 'information_schema')
        and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp%'
      order by 1, 2`,
  );
  return rows.map(({ schema, name }) => ({
    name: `${schema}.${name}`,
    sql: `${quoteIdent(schema)}.${quoteIdent(name)}`,
  }));
}

/**
 * The digest of every table, read in one transaction (one snapshot). A row is hashed as its text form (two 64-bit
 * hashes, `hashtextextended` with two seeds), and the hashes are summed: independent of the rows' order, so no table
 * is sorted, one scan each. The text form depends on a few session settings, fixed here so that a database and its
 * restored copy (a fresh session) write the same text. Run as a superuser (the embedded engine's connecting user):
 * row-level security hides no mess's rows.
 */
export async function digestTables(client: Pick<PGlite, 'transaction'>): Promise<TableDigests> {
  return client.transaction(async (tx) => {
    await tx.exec(FIXED_TEXT_FORM);
    const digests: TableDigests = {};
    for (const table of await everyTable(tx)) {
      const { rows } = await tx.query<{ rows: string; first: string; second: string }>(
        `select count(*)::text as rows, coalesce(sum(hashtextextended(r, 0)), 0)::text as first,
                coalesce(sum(hashtextextended(r, 1)), 0)::text as second
           from (select t::text as r from ${table.sql} t) as row_texts`,
      );
      const [{ rows: count, first, second }] = rows;
      digests[table.name] = {
        rows: Number(count),
        sha256: createHash('sha256').update(`${count}:${first}:${second}`).digest('hex'),
      };
    }
    return digests;
  });
}

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The tables whose digests differ (or that one side lacks), each with both sides; empty when they agree. */
export function differingTables(
  expected: TableDigests,
  found: TableDigests,
): { table: string; expected?: TableDigest; found?: TableDigest }[] {
  const names = [...new Set([...Object.keys(expected), ...Object.keys(found)])].sort();
  return names
    .filter(
      (table) =>
        expected[table]?.rows !== found[table]?.rows || expected[table]?.sha256 !== found[table]?.sha256,
    )
    .map((table) => ({ table, expected: expected[table], found: found[table] }));
}
