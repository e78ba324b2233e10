import { ConsoleLogger, Logger, type LoggerService } from '@nestjs/common';
import { Outages } from '../outages/outages';
import { inEveryMess } from './every-mess';
import { currentMessId, FIRST_MESS_ID, messIdIfAny } from './mess-scope';

const SECOND = '0b0b0b0b-0000-4000-8000-00000000000b';
const THIRD = '0c0c0c0c-0000-4000-8000-00000000000c';

/** Every line written through Nest's Logger (the job's and the outages' own), as level, context, message, text. */
class RecordingLogger implements LoggerService {
  readonly lines: { level: string; context: unknown; message: string; text: string }[] = [];
  log(...args: unknown[]) {
    this.record('log', args);
  }
  warn(...args: unknown[]) {
    this.record('warn', args);
  }
  error(...args: unknown[]) {
    this.record('error', args);
  }
  private record(level: string, args: unknown[]) {
    const message = args.find((a): a is string => typeof a === 'string') ?? '';
    this.lines.push({ level, context: args.at(-1), message, text: JSON.stringify(args) });
  }
}

describe('inEveryMess: a job in every mess', () => {
  let recorded: RecordingLogger;
  let outages: Outages;
  const job = new Logger('SomeSchedule');
  const report = () => ({ outages, logger: job, message: 'The job failed in a mess' });

  beforeEach(() => {
    recorded = new RecordingLogger();
    Logger.overrideLogger(recorded);
    outages = new Outages();
  });
  afterEach(() => outages.onModuleDestroy());
  afterAll(() => Logger.overrideLogger(new ConsoleLogger()));

  it('runs the work in each mess in turn, and returns what each gave by mess id', async () => {
    const seen: string[] = [];
    const results = await inEveryMess(
      [FIRST_MESS_ID, SECOND, THIRD],
      'the job',
      async (messId) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        seen.push(`${messId} in ${currentMessId()}`);
        return messId.slice(0, 2);
      },
      report(),
    );
    expect(seen).toEqual([
      `${FIRST_MESS_ID} in ${FIRST_MESS_ID}`,
      `${SECOND} in ${SECOND}`,
      `${THIRD} in ${THIRD}`,
    ]);
    expect([...results]).toEqual([
      [FIRST_MESS_ID, '00'],
      [SECOND, '0b'],
      [THIRD, '0c'],
    ]);
    expect(messIdIfAny()).toBeUndefined();
    expect(recorded.lines).toEqual([]);
  });

  it('goes on past a mess whose work failed, and reports it once with the job and the mess id, no query', async () => {
    const ran: string[] = [];
    const failedQuery = Object.assign(
      new Error(
        'Failed query: insert into "menus" ("mess_id", "date") values ($1, $2)\nparams: secret@example.com',
      ),
      { cause: Object.assign(new Error('menu has no week 3'), { code: 'P0001' }) },
    );
    const results = await inEveryMess(
      [FIRST_MESS_ID, SECOND, THIRD],
      'the weekly menu schedule',
      (messId) => {
        ran.push(currentMessId());
        if (messId === SECOND) throw failedQuery;
        return Promise.resolve(messId === FIRST_MESS_ID ? 1 : 3);
      },
      report(),
    );
    expect(ran).toEqual([FIRST_MESS_ID, SECOND, THIRD]);
    expect([...results]).toEqual([
      [FIRST_MESS_ID, 1],
      [THIRD, 3],
    ]);
    expect(recorded.lines.map(({ level, context, message }) => [level, context, message])).toEqual([
      ['error', 'SomeSchedule', 'The job failed in a mess'],
    ]);
    const [line] = recorded.lines;
    expect(JSON.parse(line.text)[0]).toEqual({
      job: 'the weekly menu schedule',
      messId: SECOND,
      reason: 'P0001: menu has no week 3',
    });
    expect(line.text).not.toMatch(/Failed query|insert into|params|secret@example\.com/);
  });

  it('reports a mess whose id is not a mess id, and goes on', async () => {
    const results = await inEveryMess(['not-a-mess', THIRD], 'the job', () => currentMessId(), report());
    expect([...results]).toEqual([[THIRD, THIRD]]);
    expect(recorded.lines.map((l) => [l.level, JSON.parse(l.text)[0]])).toEqual([
      ['error', { job: 'the job', messId: 'not-a-mess', reason: 'not a mess id: not-a-mess' }],
    ]);
  });

  it('stops and rethrows at once when the database is unavailable: the caller reports the outage, once', async () => {
    const ran: string[] = [];
    const shutDown = Object.assign(new Error('Failed query: select 1\nparams: '), {
      cause: Object.assign(new Error('terminating connection due to administrator command'), {
        code: '57P01',
      }),
    });
    const failing = inEveryMess(
      [FIRST_MESS_ID, SECOND, THIRD],
      'the notification schedules',
      (messId) => {
        ran.push(currentMessId());
        if (messId === SECOND) return Promise.reject(shutDown);
        return Promise.resolve(messId);
      },
      report(),
    );
    await expect(failing).rejects.toBe(shutDown);
    expect(ran).toEqual([FIRST_MESS_ID, SECOND]);
    expect(recorded.lines).toEqual([]);

    // As the job's tick does with what it caught: the outage's one warning, and a second failure only counted.
    const caught = await failing.catch((error: unknown) => error);
    outages.jobFailed(caught, 'the notification schedules', job, 'Scheduled notifications failed');
    outages.jobFailed(caught, 'delivery reconciliation', job, 'Delivery reconciliation failed');
    expect(recorded.lines.map(({ level, context, message }) => [level, context, message])).toEqual([
      [
        'warn',
        'Outages',
        'The database is unavailable: 57P01: terminating connection due to administrator command',
      ],
    ]);
  });
});
