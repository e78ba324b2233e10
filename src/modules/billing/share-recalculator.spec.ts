import { ShareRecalculator } from './share-recalculator';

describe('ShareRecalculator', () => {
  let recalculator: ShareRecalculator;
  const rebuilt: string[] = [];

  beforeEach(() => {
    jest.useFakeTimers();
    rebuilt.length = 0;
    recalculator = new ShareRecalculator();
    recalculator.use(async (month) => void rebuilt.push(month));
  });
  afterEach(() => {
    recalculator.onModuleDestroy();
    jest.useRealTimers();
  });

  it('turns a burst of 1,008 marks into one run per month once the writes go quiet', async () => {
    for (let i = 0; i < 1_008; i += 1) {
      recalculator.markDirty(['2025-06']);
      if (i % 12 === 11) await jest.advanceTimersByTimeAsync(ShareRecalculator.DEBOUNCE_MS / 2); // a request every 100 ms
    }
    expect(rebuilt).toEqual([]);
    await jest.advanceTimersByTimeAsync(ShareRecalculator.DEBOUNCE_MS);
    expect(rebuilt).toEqual(['2025-06']);
    expect(recalculator.runs).toBe(1);
  });

  it('does not wait past MAX_WAIT_MS while writes keep coming', async () => {
    const steps = Math.ceil(ShareRecalculator.MAX_WAIT_MS / 100) + 1;
    for (let i = 0; i < steps; i += 1) {
      recalculator.markDirty(['2025-06']);
      await jest.advanceTimersByTimeAsync(100);
    }
    expect(recalculator.runs).toBe(1);
  });

  it('a reader of a dirty month rebuilds it at once', async () => {
    recalculator.markDirty(['2025-07']);
    await recalculator.ensureFresh('2025-07');
    expect(rebuilt).toEqual(['2025-07']);
    expect(recalculator.isDirty('2025-07')).toBe(false);
  });
});
