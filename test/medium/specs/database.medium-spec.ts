import { sql } from 'drizzle-orm';
import { IN_MEMORY } from '../../../src/config/app-config';
import type { Database } from '../../../src/database/database';
import { rowsOf } from '../../../src/database/sql-rows';
import {
  openEmbeddedDatabase,
  StatementOutsideTransactionError,
} from '../../../src/database/embedded-database';
import { inMess, FIRST_MESS_ID } from '../../../src/common/tenancy/mess-scope';
import { loadPgliteTemplate } from '../../support/templates';

/**
 * The embedded engine has one session: a transaction holds it. A statement sent to the engine (not the
 * transaction) by the transaction's own work could only run after the transaction ends, which waits for it: the
 * engine refuses it at once (issue 44), and a statement left running by the work after the end runs as usual.
 */
describe('The embedded engine inside a transaction', () => {
  let database: Database;

  beforeAll(async () => {
    database = await openEmbeddedDatabase({ dataDir: IN_MEMORY, template: await loadPgliteTemplate() });
    await database.migrate();
  });
  afterAll(() => database?.close());

  /** Drizzle wraps what the driver threw (DrizzleQueryError, with the refusal as its cause). */
  const refused = { cause: expect.any(StatementOutsideTransactionError) };

  /** The refusals this test expects are not the mistake the suite's afterEach looks for. */
  const expectingRefusals = async (n: number, work: () => Promise<void>) => {
    const before = StatementOutsideTransactionError.raised;
    await work();
    expect(StatementOutsideTransactionError.raised - before).toBe(n);
    StatementOutsideTransactionError.raised = before;
  };

  it('refuses a statement, or a transaction, sent outside the open transaction by its own work', async () => {
    await expectingRefusals(2, async () => {
      const answered = await inMess(FIRST_MESS_ID, () =>
        database.db.transaction(async (tx) => {
          await expect(database.db.execute(sql`select 1`)).rejects.toMatchObject(refused);
          await expect(database.acrossMesses((r) => r.execute(sql`select 1`))).rejects.toBeInstanceOf(
            StatementOutsideTransactionError,
          );
          // The transaction itself goes on.
          return rowsOf(await tx.execute(sql`select 41 + 1 as answer`));
        }),
      );
      expect(answered).toEqual([{ answer: 42 }]);
    });
  });

  it('runs work the transaction started and left running once the transaction has ended', async () => {
    let later: Promise<unknown> | undefined;
    await inMess(FIRST_MESS_ID, () =>
      database.db.transaction(async (tx) => {
        later = Promise.resolve().then(async () => {
          // Queued until the transaction ends: not a statement the transaction waits for.
          await new Promise((resolve) => setTimeout(resolve, 50));
          return database.db.execute(sql`select 2 as two`);
        });
        await tx.execute(sql`select 1`);
      }),
    );
    await expect(later).resolves.toMatchObject({ rows: [{ two: 2 }] });
  });

  it('lets other work queue behind the transaction and run after it', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = inMess(FIRST_MESS_ID, () =>
      database.db.transaction(async (tx) => {
        await held;
        await tx.execute(sql`select 1`);
      }),
    );
    const outside = database.db.execute(sql`select 3 as three`);
    release();
    await transaction;
    await expect(outside).resolves.toMatchObject({ rows: [{ three: 3 }] });
  });
});
