import { Client, Pool, type PoolClient } from 'pg';
import { InMessQuery } from './in-mess-query';
import { MessSession, messSettingsQuery, messSettingsSql } from './mess-session';

/** What each pooled connection's session is set to (session pool mode). */
const sessions = new WeakMap<PoolClient, MessSession>();

function sessionOf(client: PoolClient): MessSession {
  let session = sessions.get(client);
  if (!session) sessions.set(client, (session = new MessSession()));
  return session;
}

/**
 * How the service's statements get their mess on the server (`DATABASE_POOL_MODE`). Every transaction sets the role
 * and `app.mess` with `set local` as it begins (one round trip with its `begin`), in both modes; they differ in the
 * statements outside a transaction and in names:
 * - `session` (a direct connection, or a pooler in session mode): the connection's session holds the role and the
 *   mess it was last used for, and a statement for another mess is sent with `set_config(…)` of both in front of it
 *   before one Sync (one round trip, InMessQuery), so a deployment with one mess pays nothing per statement; the
 *   service's named statements, and the settings statement, are prepared once per connection;
 * - `transaction` (a pooler in transaction mode, where consecutive transactions of one client may run on different
 *   server connections): every statement is sent with `set_config(…, true)` in front of it, and none is prepared
 *   under a name (the pooler's next transaction may be on a server connection that never saw it).
 */
export type PoolMode = 'session' | 'transaction';

/**
 * A pg pool whose clients run the service's statements as its role, in the running code's mess (or none). Drizzle
 * runs plain statements through `query` and transactions through `connect`, and both pass here; a transaction's
 * statements run in the mess it began in.
 */
export class MessPool extends Pool {
  /** False until the migrations have run: before them the service's role may not exist yet. */
  sealed = false;

  constructor(
    config: ConstructorParameters<typeof Pool>[0],
    readonly mode: PoolMode,
  ) {
    super(config);
  }

  override connect(): Promise<PoolClient>;
  override connect(callback: Parameters<Pool['connect']>[0]): void;
  override connect(callback?: Parameters<Pool['connect']>[0]): Promise<PoolClient> | void {
    if (callback) return super.connect(callback);
    return super.connect().then((client) => this.arrive(client));
  }

  override query(...args: unknown[]): never {
    if (typeof args[args.length - 1] === 'function') throw new Error('MessPool.query takes no callback');
    const sealed = this.sealed;
    return this.connect().then(async (client) => {
      try {
        const result = !sealed
          ? await (client.query as (...a: unknown[]) => Promise<unknown>)(...args)
          : this.mode === 'transaction'
            ? await inItsMess(client, args, { local: true, named: false })
            : sessionOf(client).movesToCurrentMess()
              ? await inItsMess(client, args, { local: false, named: true })
              : await (client.query as (...a: unknown[]) => Promise<unknown>)(...args);
        client.release();
        return result;
      } catch (error) {
        // As pg's own pool.query does: a client whose statement failed is not reused (its implicit transaction, and
        // with it a session setting sent in front of the statement, was rolled back; and what pg remembers of the
        // connection's named statements may be wrong): failures are rare and a fresh connection is cheap.
        client.release(error as Error);
        throw error;
      }
    }) as never;
  }

  private arrive(client: PoolClient): PoolClient {
    (client as MessClient).scoped = this.sealed ? this.mode : undefined;
    return client;
  }
}

/**
 * A statement outside a transaction: sent with its mess's settings in front of it, in one round trip (InMessQuery),
 * for its own implicit transaction (`local`) or for the session; it and the settings keep their names when `named`.
 */
function inItsMess(
  client: PoolClient,
  args: unknown[],
  options: { local: boolean; named: boolean },
): Promise<unknown> {
  const [first, values] = args;
  // Drizzle passes (config, values); pg also takes (text, values) and a config holding its values.
  const { name, ...config } =
    typeof first === 'string' ? { text: first } : (first as { name?: string; text: string; values?: unknown[] });
  if (Array.isArray(values)) config.values = values;
  return new Promise((resolve, reject) => {
    const statement = options.named ? { ...config, name } : config;
    const query = new InMessQuery(statement, messSettingsQuery(options), (error, result) => {
      if (!error) return resolve(result);
      if (dropsTheConnection(error)) destroyConnection(client);
      reject(error);
    });
    (client.query as (q: unknown) => unknown)(query);
  });
}

/** The message node-postgres gives a query that outlived `query_timeout`. */
const QUERY_READ_TIMEOUT = 'Query read timeout';

/**
 * SQLSTATEs after which the connection is not worth keeping: 25006, a write refused because the server at its other
 * end is a standby (the primary was demoted under it in a switchover) or the session began while the database took
 * no writes; 57P01-57P03, the server shutting down or not yet up. The pool opens a fresh connection instead, which
 * after a failover reaches the new primary; kept, it would refuse every write of every request it served.
 */
const STALE_SERVER_STATES = new Set(['25006', '57P01', '57P02', '57P03']);

/** Whether a query's failure leaves its connection unfit for the next statement (see DeadlineClient). */
function dropsTheConnection(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return error.message === QUERY_READ_TIMEOUT || (typeof code === 'string' && STALE_SERVER_STATES.has(code));
}

/**
 * A pg client whose connection is destroyed as soon as one of its queries misses the client-side deadline
 * (`query_timeout`). node-postgres only fails that query: the connection keeps waiting for its answer, every later
 * query on it (a transaction's ROLLBACK, the next request after the pool handed it out again) waits its own full
 * deadline, and a pool of such clients stays stuck after the network comes back. Destroyed, its pending queries
 * fail at once and the pool replaces it. So is a connection whose server turned out to be a standby or going away.
 */
export class DeadlineClient extends Client {
  /**
   * Set by the pool at each checkout once the migrations have run: the service's transactions set their mess as they
   * begin, and in transaction pool mode no statement keeps a name.
   */
  scoped: PoolMode | undefined;

  constructor(config?: ConstructorParameters<typeof Client>[0]) {
    super(config);
    // A connection lost while the client is checked out fails its queries (and so the request, with 503); the
    // 'error' event it also emits then has no pool listener, and unheard it would crash the process.
    this.on('error', () => undefined);
  }

  override query(...args: unknown[]): never {
    const begins = isBegin(args[0]);
    if (this.scoped) args[0] = inItsTransaction(args[0], this.scoped);
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      (result as Promise<unknown>).catch((error: unknown) => {
        if (dropsTheConnection(error)) destroyConnection(this);
        if (begins) this.giveBackAfterFailedBegin(error);
      });
    }
    return result as never;
  }

  /**
   * Drizzle's transaction takes its client from the pool and sends `begin` before its try/finally, so a `begin` that
   * fails (the connection lost in a failover as it left the pool) never releases it: after a few such faults no
   * request would get a connection again. Given back here as broken, the pool drops it and opens another.
   */
  private giveBackAfterFailedBegin(error: unknown): void {
    const release = (this as unknown as { release?: (error?: Error) => void }).release;
    try {
      release?.call(this, error instanceof Error ? error : new Error(String(error)));
    } catch {
      // Not checked out of a pool, or already given back: nothing held.
    }
  }
}

type MessClient = PoolClient & { scoped?: PoolMode };

const BEGIN = /^\s*begin\b/i;

/** Whether a statement (text or config) opens a transaction. */
function isBegin(query: unknown): boolean {
  const text = typeof query === 'string' ? query : (query as { text?: unknown } | null)?.text;
  return typeof text === 'string' && BEGIN.test(text);
}

/**
 * A statement of the service's on a checked-out client (a transaction's): a `begin` followed by the settings of the
 * running code's mess (one round trip), and in transaction pool mode no name (no prepared statement outlives its
 * transaction there).
 */
function inItsTransaction(query: unknown, mode: PoolMode): unknown {
  if (typeof query === 'string') return BEGIN.test(query) ? `${query}; ${messSettingsSql(true)}` : query;
  if (!query || typeof query !== 'object' || typeof (query as { submit?: unknown }).submit === 'function') return query;
  const config = query as { name?: string; text?: string; values?: unknown[] };
  if (typeof config.text === 'string' && BEGIN.test(config.text) && !config.values?.length)
    return { ...config, name: undefined, text: `${config.text}; ${messSettingsSql(true)}`, values: undefined };
  if (mode === 'session' || config.name === undefined) return query;
  const { name: _name, ...unnamed } = config;
  return unnamed;
}

/** node-postgres' socket of a client (not in its typings). */
export function destroyConnection(client: Client | PoolClient): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

/** Whether a query is still outstanding on a client (node-postgres internals, guarded). */
export function hasPendingQuery(client: PoolClient): boolean {
  const internals = client as unknown as { _getActiveQuery?: () => unknown; _queryQueue?: unknown[] };
  return Boolean(internals._getActiveQuery?.() ?? internals._queryQueue?.length);
}
