import { CacheInvalidation } from '../../common/cache/cache-invalidation';
import { CacheStats } from '../../common/stats/service-stats';
import { FIRST_MESS_ID, inMess } from '../../common/tenancy/mess-scope';
import { MonthCache } from './month-cache';

/** Records what this process publishes and delivers what "another replica" published, as the wire would. */
class Wire extends CacheInvalidation {
  readonly transport = 'none' as const;
  readonly sent: unknown[] = [];
  protected async send(payload: string): Promise<void> {
    this.sent.push(JSON.parse(payload));
  }
  fromAnotherReplica(topic: string, keys: string[] | 'all'): void {
    this.receive(JSON.stringify({ origin: 'another replica', topic, keys }));
  }
  echo(topic: string, keys: string[] | 'all'): void {
    this.receive(JSON.stringify({ origin: this.origin, topic, keys }));
  }
}

describe('MonthCache', () => {
  /** The cache keys answers by the mess the caller acts in: a test calling it directly acts in the first mess. */
  const inFirstMess = <T>(work: () => Promise<T>) => inMess(FIRST_MESS_ID, work);
  let stats: CacheStats;
  let cache: MonthCache;
  let wire: Wire;
  beforeEach(() => {
    stats = new CacheStats();
    wire = new Wire();
    cache = new MonthCache(stats, wire);
  });

  describe('lookup and keep (another module computes its own answer)', () => {
    it('misses, keeps what the caller computed, then hits', () =>
      inFirstMess(async () => {
        const miss = cache.lookup<number>('figures', ['2025-03']);
        expect(miss.hit).toBe(false);
        if (miss.hit) return;
        expect(cache.keep(miss, 42)).toBe(42);
        expect(cache.lookup<number>('figures', ['2025-03'])).toEqual({ hit: true, value: 42 });
        // The same key as `get` uses: the two ways share their entries.
        expect(await cache.get('figures', ['2025-03'], () => Promise.resolve(7))).toBe(42);
      }));

    it('does not keep an answer whose month a write touched between the lookup and the keep', () =>
      inFirstMess(async () => {
        const miss = cache.lookup<number>('figures', ['2025-03']);
        if (miss.hit) throw new Error('expected a miss');
        cache.invalidate(['2025-03']);
        expect(cache.keep(miss, 1)).toBe(1);
        expect(cache.lookup<number>('figures', ['2025-03']).hit).toBe(false);
      }));
  });

  describe('across replicas', () => {
    it('publishes the months it invalidates, and everything on invalidateAll', () =>
      inFirstMess(async () => {
        cache.invalidate(['2025-03', '2025-03', '2025-04']);
        await wire.flush();
        cache.invalidateAll();
        await wire.flush();
        expect(wire.sent).toEqual([
          { origin: expect.any(String), topic: 'analytics', keys: ['2025-03', '2025-04'] },
          { origin: expect.any(String), topic: 'analytics', keys: 'all' },
        ]);
      }));

    it('sends what is invalidated within a few milliseconds as one message', () =>
      inFirstMess(async () => {
        cache.invalidate(['2025-03']);
        cache.invalidate(['2025-04', '2025-03']);
        expect(wire.sent).toEqual([]);
        await new Promise((resolve) => setTimeout(resolve, CacheInvalidation.COALESCE_MS + 30));
        expect(wire.sent).toEqual([
          { origin: expect.any(String), topic: 'analytics', keys: ['2025-03', '2025-04'] },
        ]);
        cache.invalidate(['2025-05']);
        cache.invalidateAll();
        await wire.flush();
        expect(wire.sent.at(-1)).toEqual({ origin: expect.any(String), topic: 'analytics', keys: 'all' });
        expect(wire.sent).toHaveLength(2);
      }));

    it("drops the months another replica's write touched, keeps the others, and ignores its own echo", () =>
      inFirstMess(async () => {
        await cache.get('march', ['2025-03'], async () => 'march v1');
        await cache.get('april', ['2025-04'], async () => 'april v1');
        wire.echo('analytics', ['2025-03']);
        expect(await cache.get('march', ['2025-03'], async () => 'march v2')).toBe('march v1');
        wire.fromAnotherReplica('analytics', ['2025-03']);
        expect(await cache.get('march', ['2025-03'], async () => 'march v2')).toBe('march v2');
        expect(await cache.get('april', ['2025-04'], async () => 'april v2')).toBe('april v1');
        wire.fromAnotherReplica('analytics', 'all');
        expect(await cache.get('april', ['2025-04'], async () => 'april v3')).toBe('april v3');
      }));

    it('does not keep an answer computed while a remote invalidation of its month arrived', () =>
      inFirstMess(async () => {
        let finish!: (value: string) => void;
        const first = cache.get('k', ['2025-03'], () => new Promise<string>((r) => (finish = r)));
        wire.fromAnotherReplica('analytics', ['2025-03']);
        finish('before the remote write');
        await first;
        expect(await cache.get('k', ['2025-03'], async () => 'after')).toBe('after');
      }));
  });

  /** A computation the test finishes by hand. */
  const deferred = <T>() => {
    let resolve!: (value: T) => void;
    const promise = new Promise<T>((r) => (resolve = r));
    return { promise, resolve };
  };

  it('does not keep an answer computed before a write to its month invalidated it', () =>
    inFirstMess(async () => {
      const slow = deferred<string>();
      const first = cache.get('k', ['2025-03'], () => slow.promise);
      cache.invalidate(['2025-03']); // a write commits while the answer is being computed
      slow.resolve('before the write');
      expect(await first).toBe('before the write'); // its own caller still gets it
      expect(await cache.get('k', ['2025-03'], async () => 'after the write')).toBe('after the write');
      expect(await cache.get('k', ['2025-03'], async () => 'not asked')).toBe('after the write');
    }));

  it('keeps an answer when only another month was written meanwhile', () =>
    inFirstMess(async () => {
      const slow = deferred<string>();
      const first = cache.get('k', ['2025-03'], () => slow.promise);
      cache.invalidate(['2025-04']);
      slow.resolve('march');
      await first;
      expect(await cache.get('k', ['2025-03'], async () => 'recomputed')).toBe('march');
    }));

  it('drops every month at once, in flight included, on invalidateAll', () =>
    inFirstMess(async () => {
      await cache.get('a', ['2025-01'], async () => 1);
      const slow = deferred<number>();
      const inFlight = cache.get('b', ['2025-02'], () => slow.promise);
      cache.invalidateAll();
      slow.resolve(2);
      await inFlight;
      expect(await cache.get('a', ['2025-01'], async () => 10)).toBe(10);
      expect(await cache.get('b', ['2025-02'], async () => 20)).toBe(20);
    }));

  it('counts only the outer lookup of nested ones', () =>
    inFirstMess(async () => {
      const outer = () =>
        cache.get('outer', ['2025-03'], () =>
          cache.get('inner', ['2025-03'], async () => 1, { nested: true }),
        );
      await outer();
      expect([stats.hits, stats.misses]).toEqual([0, 1]);
      await outer();
      expect([stats.hits, stats.misses]).toEqual([1, 1]);
    }));

  it("keeps each mess's answer of a key apart, and a month's write drops every mess's", () =>
    inFirstMess(async () => {
      const other = '00000000-0000-4000-8000-0000000000b7';
      expect(await cache.get('health:2025-03', ['2025-03'], async () => 'first mess')).toBe('first mess');
      const inOther = () =>
        inMess(other, () => cache.get('health:2025-03', ['2025-03'], async () => 'other mess'));
      expect(await inOther()).toBe('other mess');
      expect(await cache.get('health:2025-03', ['2025-03'], async () => 'recomputed')).toBe('first mess');
      cache.invalidate(['2025-03']);
      expect(await cache.get('health:2025-03', ['2025-03'], async () => 'recomputed')).toBe('recomputed');
      expect(await inMess(other, () => cache.get('health:2025-03', ['2025-03'], async () => 'again'))).toBe(
        'again',
      );
    }));
});
