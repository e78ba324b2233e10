import { PGlite } from '@electric-sql/pglite';
import { Logger } from '@nestjs/common';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { IN_MEMORY } from '../config/app-config';
import {
  Database,
  type DatabaseConnection,
  type DatabaseOptions,
  type Db,
  type DbState,
  MIGRATIONS_FOLDER,
  type PoolStats,
} from './database';
import { MessSession, SessionLock } from './mess-session';

/** Resolves after the event loop has gone round once: timers, and the poll phase that accepts and reads sockets. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

type Queryable = Pick<PGlite, 'query' | 'exec'>;

/**
 * A statement sent to the engine, not to the open transaction, by code running inside that transaction. The
 * transaction holds the engine's one session, so the statement would wait for the transaction's end while the
 * transaction waits for the statement: the whole service would hang (every later statement queues behind them, and
 * shutdown with them). Refused at once instead, so that the mistake fails the request and its tests. A statement
 * that needs the transaction's data goes through the transaction's handle; one that does not, before it or after.
 */
export class StatementOutsideTransactionError extends Error {
  /** How many were raised in this process: the test suites fail a test during which the count grew. */
  static raised = 0;

  constructor() {
    StatementOutsideTransactionError.raised++;
    super(
      'A statement was sent to the embedded database, outside the transaction that the same work holds open: ' +
        'it would wait for that transaction for ever. Send it through the transaction, or before or after it.',
    );
    this.name = 'StatementOutsideTransactionError';
  }
}

/** The transaction the running code is inside, while it is open (its session is then that transaction's). */
const openTransaction = new AsyncLocalStorage<{ session: EmbeddedSession; open: boolean }>();

/** Throws when the running code holds this session in an open transaction (the statement could never run). */
function refuseInsideOwnTransaction(session: EmbeddedSession): void {
  const held = openTransaction.getStore();
  if (held?.open && held.session === session) throw new StatementOutsideTransactionError();
}

/**
 * The PGlite client as drizzle sees it, giving the event loop a turn before each statement (in a transaction too),
 * and running each statement (or transaction) of the service as the service's role in the running code's mess.
 *
 * PGlite runs PostgreSQL in this thread and answers through promises that settle at once, so without the turn a
 * request's statements, and those of every request waiting behind it, run one after the other in a single turn of
 * the loop. A turn then lasts as long as all of them, and the loop accepts new connections only between turns: under
 * 200 connections the service accepted about three a second while it served the connections it had, and clients
 * whose connection waited in the listen queue got no answer for 10 s (as a plain Node server that works 3 ms per
 * request does). With a turn per statement, the loop accepts and reads between statements; a request then waits in
 * the admission queue, which answers 503 past its deadline, instead of unaccepted.
 *
 * PGlite is one session, shared with the job queue: the lock keeps "point the session at this mess" and the
 * statement it is for together, so no other statement runs between them. A transaction holds the lock throughout
 * (PGlite runs nothing else inside one either), and its statements run in the mess it began in.
 */
function scopedTurns<T extends Queryable>(client: T, shared: EmbeddedSession, want: 'app' | 'owner'): T {
  return new Proxy(client, {
    get(target, property) {
      if (property === 'query' || property === 'exec') {
        const run = (target[property] as (...args: unknown[]) => Promise<unknown>).bind(target);
        return async (...args: unknown[]) => {
          refuseInsideOwnTransaction(shared);
          await nextTurn();
          return shared.lock.run(async () => {
            await shared.arrive(want);
            return run(...args);
          });
        };
      }
      if (property === 'transaction') {
        const transaction = (target as unknown as PGlite).transaction.bind(target);
        return async <R>(work: (tx: Queryable) => Promise<R>) => {
          refuseInsideOwnTransaction(shared);
          return shared.lock.run(async () => {
            await shared.arrive(want);
            // Marked open for the work's own async context only, and closed when the transaction ends (work it
            // started and left running may go on to send statements of its own afterwards).
            const held = { session: shared, open: true };
            try {
              return await openTransaction.run(held, () => transaction((tx) => work(takingTurns(tx))));
            } finally {
              held.open = false;
            }
          });
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Inside a transaction: the turn before each statement only (the transaction holds the session). */
function takingTurns<T extends Queryable>(tx: T): T {
  return new Proxy(tx, {
    get(target, property) {
      if (property === 'query' || property === 'exec') {
        const run = (target[property] as (...args: unknown[]) => Promise<unknown>).bind(target);
        return async (...args: unknown[]) => {
          await nextTurn();
          return run(...args);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The embedded engine's one session: who holds it, and what it is set to. */
class EmbeddedSession {
  readonly lock = new SessionLock();
  private readonly session = new MessSession();
  /** False until the migrations have run: before them the service's role may not exist yet. */
  sealed = false;

  constructor(private readonly client: PGlite) {}

  async arrive(want: 'app' | 'owner'): Promise<void> {
    if (!this.sealed) return;
    const statement = want === 'app' ? this.session.toCurrentMess() : this.session.toOwner();
    if (statement === null) return;
    try {
      await this.client.exec(statement);
    } catch (error) {
      this.session.forget();
      throw error;
    }
  }
}

export class EmbeddedDatabase extends Database {
  readonly kind = 'embedded' as const;
  readonly db: Db;
  private closed = false;
  private readonly session: EmbeddedSession;

  /** @param pgdata the data directory on disk; undefined in memory. */
  constructor(
    private readonly client: PGlite,
    readonly pgdata?: string,
  ) {
    super();
    this.session = new EmbeddedSession(client);
    this.db = drizzlePglite({ client: scopedTurns(client, this.session, 'app') }) as unknown as Db;
  }

  state(): DbState {
    return this.closed ? 0 : 1;
  }

  connection(): DatabaseConnection {
    // The job queue's statements run as the connecting user, who owns its tables; never between a statement of the
    // service and the switch to its mess.
    return { kind: 'embedded', client: scopedTurns(this.client, this.session, 'owner') };
  }

  poolStats(): PoolStats {
    return this.closed
      ? { total: 0, idle: 0, waiting: 0, max: 1 }
      : { total: 1, idle: 0, waiting: 0, max: 1 };
  }

  async migrate(): Promise<void> {
    const owner = drizzlePglite({ client: scopedTurns(this.client, this.session, 'owner') });
    await migratePglite(owner, { migrationsFolder: MIGRATIONS_FOLDER });
    this.session.sealed = true;
  }

  /**
   * Runs `work` on the engine itself, as the connecting user (a superuser: every mess's rows), while nothing else
   * does: the service's statements and the job queue's wait until it ends. The one consistent view of the whole
   * database the embedded engine can give while the service runs (a backup); keep `work` short.
   */
  holdSession<T>(work: (client: PGlite) => Promise<T>): Promise<T> {
    refuseInsideOwnTransaction(this.session);
    return this.session.lock.run(async () => {
      await this.session.arrive('owner');
      return work(this.client);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.close();
  }
}

/** PGlite in this process: in memory, or kept under `<dataDir>/pgdata`. */
export async function openEmbeddedDatabase(options: DatabaseOptions): Promise<EmbeddedDatabase> {
  const logger = new Logger('Database');
  if (options.dataDir === IN_MEMORY) {
    logger.log('Using the embedded database in memory (nothing is kept after exit)');
    return new EmbeddedDatabase(
      await PGlite.create(options.template ? { loadDataDir: options.template } : undefined),
    );
  }
  const dir = resolve(join(options.dataDir, 'pgdata'));
  mkdirSync(dir, { recursive: true });
  logger.log(`Using the embedded database at ${dir}`);
  return new EmbeddedDatabase(await PGlite.create(dir), dir);
}
