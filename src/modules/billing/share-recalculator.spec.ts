import { ShareRecalculator } from './share-recalculator';

describe('ShareRecalculator', () => {
  const recalculator = () => {
    const runs: string[] = [];
    const r = new ShareRecalculator();
    r.use((month) => {
      runs.push(month);
      return Promise.resolve();
    });
    return { r, runs };
  };

  it('rebuilds a month only when dirty (or forced)', async () => {
    const { r, runs } = recalculator();
    await r.ensureFresh('2025-03');
    expect(runs).toEqual([]);
    await r.ensureFresh('2025-03', true);
    r.markStale(['2025-04']);
    await r.ensureFresh('2025-04');
    await r.ensureFresh('2025-04');
    expect(runs).toEqual(['2025-03', '2025-04']);
  });

  it('after markAllStale rebuilds every month once before its next read, built here before or not', async () => {
    const { r, runs } = recalculator();
    await r.ensureFresh('2025-03', true);
    r.markAllStale();
    expect(r.isDirty('2025-03')).toBe(true);
    expect(r.isDirty('2024-01')).toBe(true);
    await r.ensureFresh('2025-03');
    await r.ensureFresh('2025-03');
    await r.ensureFresh('2024-01');
    await r.ensureFresh('2024-01');
    expect(runs).toEqual(['2025-03', '2025-03', '2024-01']);
    expect(r.isDirty('2025-03')).toBe(false);
    r.onModuleDestroy();
  });
});
