import { retryWhileUnavailable } from './start-up-retry';

/** A clock that moves only when the retry sleeps, and a log that keeps what it was told. */
function harness(deadlineMs: number) {
  let now = 0;
  const slept: number[] = [];
  const warned: string[] = [];
  const logged: string[] = [];
  const options = {
    deadlineMs,
    logger: { warn: (m: string) => warned.push(m), log: (m: string) => logged.push(m) },
    sleep: async (ms: number) => {
      slept.push(ms);
      now += ms;
    },
    now: () => now,
  };
  return { options, slept, warned, logged };
}

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('retryWhileUnavailable', () => {
  it('runs a step again while the database cannot serve, pausing 250 ms doubling to 2 s', async () => {
    const { options, slept, warned, logged } = harness(30_000);
    const failures = [
      pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5440'),
      pgError('57P01', 'terminating connection due to administrator command'),
      pgError('25006', 'cannot execute INSERT in a read-only transaction'),
      new Error('Connection terminated unexpectedly'),
      pgError('57P03', 'the database system is starting up'),
      pgError('57P01', 'terminating connection due to administrator command'),
    ];
    let calls = 0;
    const result = await retryWhileUnavailable(
      'Migrating the database',
      async () => {
        calls += 1;
        const failure = failures.shift();
        if (failure) throw failure;
        return 'migrated';
      },
      options,
    );
    expect(result).toBe('migrated');
    expect(calls).toBe(7);
    expect(slept).toEqual([250, 500, 1000, 2000, 2000, 2000]);
    expect(warned[0]).toBe(
      'Migrating the database: the database cannot serve now (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5440); ' +
        'trying again in 250 ms (attempt 1, 0 ms of DB_START_RETRY_SECONDS=30 used)',
    );
    expect(warned[2]).toMatch(/\(25006: cannot execute INSERT in a read-only transaction\)/);
    expect(logged).toEqual(['Migrating the database: done at attempt 7, 7750 ms after the first']);
  });

  it('fails at once on an error that is not the database being away', async () => {
    const { options, slept } = harness(30_000);
    const broken = pgError('42P01', 'relation "users" does not exist');
    await expect(retryWhileUnavailable('Opening the job queue', () => Promise.reject(broken), options)).rejects.toBe(
      broken,
    );
    expect(slept).toEqual([]);
  });

  it('gives up with the last error once the next pause would pass the deadline', async () => {
    const { options, slept, warned } = harness(3_000);
    let calls = 0;
    const away = () => {
      calls += 1;
      return Promise.reject(pgError('57P01', `terminating connection (attempt ${calls})`));
    };
    await expect(retryWhileUnavailable('Opening the database', away, options)).rejects.toThrow(
      'terminating connection (attempt 4)',
    );
    // 250 + 500 + 1000 = 1750 ms slept; a 2,000 ms pause would end at 3,750 ms, past 3,000.
    expect(slept).toEqual([250, 500, 1000]);
    expect(warned).toHaveLength(3);
  });

  it('tries once when the deadline is 0', async () => {
    const { options, slept } = harness(0);
    await expect(
      retryWhileUnavailable('Opening the database', () => Promise.reject(pgError('08006', 'lost')), options),
    ).rejects.toThrow('lost');
    expect(slept).toEqual([]);
  });
});
