import { Logger } from '@nestjs/common';
import { Outages } from '../../common/outages/outages';
import { currentMessId, FIRST_MESS_ID, inMess } from '../../common/tenancy/mess-scope';
import { ShareRecalculator } from './share-recalculator';

const OTHER_MESS = '00000000-0000-4000-8000-0000000000b7';

describe('ShareRecalculator', () => {
  /** Months are kept per mess, the mess the caller acts in: a test calling it directly acts in the first mess. */
  const inFirstMess = <T>(work: () => Promise<T>) => inMess(FIRST_MESS_ID, work);
  let recalculator: ShareRecalculator;
  let outages: Outages;
  const rebuilt: string[] = [];

  beforeEach(() => {
    jest.useFakeTimers();
    rebuilt.length = 0;
    outages = new Outages();
    recalculator = new ShareRecalculator(outages);
    recalculator.use(async (month) => {
      rebuilt.push(currentMessId() === FIRST_MESS_ID ? month : `${month} in ${currentMessId()}`);
    });
  });
  afterEach(() => {
    recalculator.onModuleDestroy();
    outages.onModuleDestroy();
    jest.restoreAllMocks();
    jest.useRealTimers();
  });

  it('turns a burst of 1,008 marks into one run per month once the writes go quiet', () =>
    inFirstMess(async () => {
      for (let i = 0; i < 1_008; i += 1) {
        recalculator.markDirty(['2025-06']);
        if (i % 12 === 11) await jest.advanceTimersByTimeAsync(ShareRecalculator.DEBOUNCE_MS / 2); // a request every 100 ms
      }
      expect(rebuilt).toEqual([]);
      await jest.advanceTimersByTimeAsync(ShareRecalculator.DEBOUNCE_MS);
      expect(rebuilt).toEqual(['2025-06']);
      expect(recalculator.runs).toBe(1);
    }));

  it('does not wait past MAX_WAIT_MS while writes keep coming', () =>
    inFirstMess(async () => {
      const steps = Math.ceil(ShareRecalculator.MAX_WAIT_MS / 100) + 1;
      for (let i = 0; i < steps; i += 1) {
        recalculator.markDirty(['2025-06']);
        await jest.advanceTimersByTimeAsync(100);
      }
      expect(recalculator.runs).toBe(1);
    }));

  it('a reader of a dirty month rebuilds it at once', () =>
    inFirstMess(async () => {
      recalculator.markDirty(['2025-07']);
      await recalculator.ensureFresh('2025-07');
      expect(rebuilt).toEqual(['2025-07']);
      expect(recalculator.isDirty('2025-07')).toBe(false);
    }));

  it("keeps each mess's months apart: one timer rebuilds each in its own mess", () =>
    inFirstMess(async () => {
      recalculator.markDirty(['2025-08']);
      inMess(OTHER_MESS, () => recalculator.markDirty(['2025-08'])); // the later mark sets the timer
      expect(inMess(OTHER_MESS, () => recalculator.isDirty('2025-08'))).toBe(true);
      await jest.advanceTimersByTimeAsync(ShareRecalculator.DEBOUNCE_MS);
      expect(rebuilt.sort()).toEqual(['2025-08', `2025-08 in ${OTHER_MESS}`]);
      // A reader of one mess does not take another mess's mark for its own.
      inMess(OTHER_MESS, () => recalculator.markDirty(['2025-09']));
      await recalculator.ensureFresh('2025-09');
      expect(rebuilt).toHaveLength(2);
      await inMess(OTHER_MESS, () => recalculator.ensureFresh('2025-09'));
      expect(rebuilt.at(-1)).toBe(`2025-09 in ${OTHER_MESS}`);
    }));

  it("another replica's write (no mess named) makes the month stale in every mess, each until rebuilt here", () =>
    inFirstMess(async () => {
      recalculator.markStale(['2025-10']);
      expect(recalculator.isDirty('2025-10')).toBe(true);
      await recalculator.ensureFresh('2025-10');
      expect(recalculator.isDirty('2025-10')).toBe(false);
      expect(inMess(OTHER_MESS, () => recalculator.isDirty('2025-10'))).toBe(true);
      await inMess(OTHER_MESS, () => recalculator.ensureFresh('2025-10'));
      expect(rebuilt).toEqual(['2025-10', `2025-10 in ${OTHER_MESS}`]);
      expect(inMess(OTHER_MESS, () => recalculator.isDirty('2025-10'))).toBe(false);
    }));

  it("a background rebuild that loses the database is the outage's one warning; any other failure an error", () =>
    inFirstMess(async () => {
      const lines: string[] = [];
      for (const level of ['log', 'warn', 'error'] as const)
        jest.spyOn(Logger.prototype, level).mockImplementation((...args: unknown[]) => {
          lines.push(`${level} ${args.find((a) => typeof a === 'string')}`);
        });
      const refused = Object.assign(new Error('Failed query: select 1\nparams: '), {
        cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      });
      let failure: Error = refused;
      recalculator.use(() => Promise.reject(failure));
      recalculator.markDirty(['2025-11', '2025-12']);
      await jest.advanceTimersByTimeAsync(ShareRecalculator.DEBOUNCE_MS);
      recalculator.markDirty(['2025-11']);
      await jest.advanceTimersByTimeAsync(ShareRecalculator.DEBOUNCE_MS);
      expect(lines).toEqual([
        'warn The database is unavailable: ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432',
      ]);
      expect(recalculator.isDirty('2025-11')).toBe(true); // tried again on the next read or flush

      failure = new Error('a share formula bug');
      recalculator.markDirty(['2025-11']);
      await jest.advanceTimersByTimeAsync(ShareRecalculator.DEBOUNCE_MS);
      expect(lines.slice(1)).toEqual(['error Recalculation failed', 'error Recalculation failed']);
    }));
});
