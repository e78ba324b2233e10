import { CacheStats } from '../../common/stats/service-stats';
import { MonthCache } from './month-cache';

describe('MonthCache', () => {
  let stats: CacheStats;
  let cache: MonthCache;
  beforeEach(() => {
    stats = new CacheStats();
    cache = new MonthCache(stats);
  });

  /** A computation the test finishes by hand. */
  const deferred = <T>() => {
    let resolve!: (value: T) => void;
    const promise = new Promise<T>((r) => (resolve = r));
    return { promise, resolve };
  };

  it('does not keep an answer computed before a write to its month invalidated it', async () => {
    const slow = deferred<string>();
    const first = cache.get('k', ['2025-03'], () => slow.promise);
    cache.invalidate(['2025-03']); // a write commits while the answer is being computed
    slow.resolve('before the write');
    expect(await first).toBe('before the write'); // its own caller still gets it
    expect(await cache.get('k', ['2025-03'], async () => 'after the write')).toBe('after the write');
    expect(await cache.get('k', ['2025-03'], async () => 'not asked')).toBe('after the write');
  });

  it('keeps an answer when only another month was written meanwhile', async () => {
    const slow = deferred<string>();
    const first = cache.get('k', ['2025-03'], () => slow.promise);
    cache.invalidate(['2025-04']);
    slow.resolve('march');
    await first;
    expect(await cache.get('k', ['2025-03'], async () => 'recomputed')).toBe('march');
  });

  it('drops every month at once, in flight included, on invalidateAll', async () => {
    await cache.get('a', ['2025-01'], async () => 1);
    const slow = deferred<number>();
    const inFlight = cache.get('b', ['2025-02'], () => slow.promise);
    cache.invalidateAll();
    slow.resolve(2);
    await inFlight;
    expect(await cache.get('a', ['2025-01'], async () => 10)).toBe(10);
    expect(await cache.get('b', ['2025-02'], async () => 20)).toBe(20);
  });

  it('counts only the outer lookup of nested ones', async () => {
    const outer = () =>
      cache.get('outer', ['2025-03'], () => cache.get('inner', ['2025-03'], async () => 1, { nested: true }));
    await outer();
    expect([stats.hits, stats.misses]).toEqual([0, 1]);
    await outer();
    expect([stats.hits, stats.misses]).toEqual([1, 1]);
  });
});
