import { randomUUID } from 'node:crypto';
import { type FeedProcess, InvalidationFeed } from '../../../test/support/invalidation-feed';
import { CacheInvalidation, MAX_MESSAGE_BYTES, messages } from './cache-invalidation';

const { BEAT_MS, LEASE_MS } = CacheInvalidation;

describe('CacheInvalidation: confirmed invalidations and the lease', () => {
  let feed: InvalidationFeed;
  let writer: FeedProcess;
  let reader: FeedProcess;
  let dropped: string[];

  beforeEach(async () => {
    jest.useFakeTimers();
    feed = new InvalidationFeed();
    writer = feed.join();
    reader = feed.join();
    dropped = [];
    reader.subscribe('holders', (keys) => dropped.push(...(keys === 'all' ? ['all'] : keys)));
    writer.start();
    reader.start();
    await jest.advanceTimersByTimeAsync(BEAT_MS * 2);
  });

  afterEach(async () => {
    await writer.stop();
    await reader.stop();
    jest.useRealTimers();
  });

  /** Resolves to the fake milliseconds `promise` took. */
  const timed = async (promise: Promise<void>) => {
    const started = performance.now();
    let done = false;
    void promise.then(() => (done = true));
    for (let waited = 0; !done && waited < LEASE_MS * 3; waited += 1) await jest.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
    return performance.now() - started;
  };

  it('trusts a cache only once it has heard its own heartbeat, and not after LEASE_MS without one', async () => {
    const late = feed.join();
    expect(late.trusted()).toBe(false);
    late.start();
    await jest.advanceTimersByTimeAsync(BEAT_MS);
    expect(late.trusted()).toBe(true);
    late.cutOff = true;
    await jest.advanceTimersByTimeAsync(LEASE_MS - BEAT_MS * 2);
    expect(late.trusted()).toBe(true);
    await jest.advanceTimersByTimeAsync(BEAT_MS * 2);
    expect(late.trusted()).toBe(false);
    late.cutOff = false;
    await jest.advanceTimersByTimeAsync(BEAT_MS * 2);
    expect(late.trusted()).toBe(true);
    await late.stop();
  });

  it('resolves once every peer has dropped the keys: in a few feed turns, not the lease', async () => {
    const members = [randomUUID(), randomUUID()];
    const ms = await timed(writer.publishConfirmed('holders', members));
    expect(dropped).toEqual(members);
    expect(ms).toBeLessThan(BEAT_MS);
  });

  it('waits out the lease for a peer that went silent, by when that peer no longer trusts its cache', async () => {
    reader.cutOff = true;
    const ms = await timed(writer.publishConfirmed('holders', [randomUUID()]));
    expect(dropped).toEqual([]);
    expect(ms).toBeGreaterThanOrEqual(LEASE_MS);
    expect(reader.trusted()).toBe(false);
  });

  it('sends a batch of 500 members in parts under the NOTIFY limit, acknowledged once after the last', async () => {
    const members = Array.from({ length: 500 }, () => randomUUID());
    await timed(writer.publishConfirmed('holders', members));
    expect(dropped).toEqual(members);
    const parts = feed.published.filter((m) => m.topic === 'holders');
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(Buffer.byteLength(JSON.stringify(part))).toBeLessThan(MAX_MESSAGE_BYTES);
    expect(parts.map((p) => Boolean(p.last))).toEqual(parts.map((_, i) => i === parts.length - 1));
    expect(feed.published.filter((m) => typeof m.ack === 'string')).toHaveLength(1);
  });

  it('delivers a coalesced invalidation of many keys in parts too', async () => {
    const keys = Array.from({ length: 400 }, () => randomUUID());
    writer.publish('holders', keys);
    await jest.advanceTimersByTimeAsync(CacheInvalidation.COALESCE_MS + 10);
    expect(dropped).toEqual(keys);
  });

  it('resolves at once with nobody to tell (the embedded engine)', async () => {
    class Alone extends CacheInvalidation {
      readonly transport = 'none' as const;
      protected send = () => Promise.reject(new Error('never sent'));
    }
    const alone = new Alone();
    expect(alone.trusted()).toBe(true);
    await expect(alone.publishConfirmed('holders', [randomUUID()])).resolves.toBeUndefined();
  });
});

describe('messages', () => {
  it('keeps every key, in order, each part under the limit', () => {
    const keys = Array.from({ length: 1000 }, (_, i) => `key-${i}-${'x'.repeat(i % 50)}`);
    const parts = messages({ origin: 'me', topic: 't' }, keys);
    expect(parts.length).toBeGreaterThan(3);
    expect(parts.flatMap((p) => p.keys as string[])).toEqual(keys);
    for (const part of parts)
      expect(Buffer.byteLength(JSON.stringify({ ...part, last: true }))).toBeLessThanOrEqual(
        MAX_MESSAGE_BYTES,
      );
    expect(messages({ origin: 'me', topic: 't' }, 'all')).toEqual([
      { origin: 'me', topic: 't', keys: 'all' },
    ]);
  });
});
