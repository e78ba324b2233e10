import { CacheInvalidation } from '../../common/cache/cache-invalidation';
import type { EventMap } from '../../common/events/event-map';
import type { TokenHolder } from './revoked-tokens.repository';
import { TokenHolderCache } from './token-holder-cache';
import { InvalidationFeed } from '../../../test/support/invalidation-feed';
import { requestContext } from '../../common/context/request-context';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The wire between replicas: records what this process publishes and delivers what "another replica" sent. */
class Wire extends CacheInvalidation {
  readonly transport = 'none' as const;
  readonly sent: { topic: string; keys: unknown }[] = [];
  protected async send(payload: string): Promise<void> {
    this.sent.push(JSON.parse(payload) as { topic: string; keys: unknown });
  }
  fromAnotherReplica(keys: string[] | 'all'): void {
    this.receive(JSON.stringify({ origin: 'another replica', topic: TokenHolderCache.TOPIC, keys }));
  }
}
import { FIRST_MESS_ID } from '../../common/tenancy/mess-scope';

const ASHA = '0b6d6a4e-3f39-4a8e-9d0e-1f1f1f1f1f1f';
const RAVI = '6f1c2f44-8a55-4c1e-b7a9-2e2e2e2e2e2e';
const holderOf = (id: string, role: TokenHolder['role'] = 'student'): TokenHolder => ({
  id,
  email: `${id.slice(0, 4)}@example.com`,
  fullName: 'A member',
  messId: FIRST_MESS_ID,
  role,
  status: 'approved',
  tokenVersion: 0,
  revoked: false,
});

describe('TokenHolderCache', () => {
  let wire: Wire;
  let cache: TokenHolderCache;
  let reads: number;
  let stored: Map<string, TokenHolder>;
  const read = (id: string) => async () => {
    reads += 1;
    return stored.get(id);
  };

  beforeEach(() => {
    wire = new Wire();
    cache = new TokenHolderCache(wire);
    reads = 0;
    stored = new Map([
      [ASHA, holderOf(ASHA)],
      [RAVI, holderOf(RAVI)],
    ]);
  });

  it('reads a token holder once and answers the next requests from memory', async () => {
    expect(await cache.holder(ASHA, 'token-1', read(ASHA))).toEqual(holderOf(ASHA));
    expect(await cache.holder(ASHA, 'token-1', read(ASHA))).toEqual(holderOf(ASHA));
    expect(reads).toBe(1);
    expect([cache.hits, cache.misses]).toEqual([1, 1]);
  });

  it('keeps no answer for a member that does not exist, and none for a token that names someone else', async () => {
    expect(await cache.holder(ASHA, 'token-1', async () => undefined)).toBeUndefined();
    await cache.holder(ASHA, 'token-1', read(ASHA));
    await cache.holder(RAVI, 'token-1', read(RAVI));
    expect(reads).toBe(2);
  });

  it('reads a member again after their row changed, and tells the other replicas which member', async () => {
    await cache.holder(ASHA, 'token-1', read(ASHA));
    await cache.holder(RAVI, 'token-2', read(RAVI));
    stored.set(ASHA, holderOf(ASHA, 'manager'));
    // As the bus delivers it: the event names its mess, and the listener runs in it.
    const updated: EventMap['member.updated'] = { userId: ASHA, messId: FIRST_MESS_ID };
    cache.onMemberUpdated(updated);
    expect((await cache.holder(ASHA, 'token-1', read(ASHA)))?.role).toBe('manager');
    await cache.holder(RAVI, 'token-2', read(RAVI));
    expect(reads).toBe(3);
  });

  it("tells the other replicas which member, and the change's request waits until they dropped them", async () => {
    const feed = new InvalidationFeed();
    const here = feed.join();
    const there = feed.join();
    const ours = new TokenHolderCache(here);
    const theirs = new TokenHolderCache(there);
    here.start();
    there.start();
    try {
      await sleep(CacheInvalidation.BEAT_MS);
      await theirs.holder(ASHA, 'token-1', read(ASHA));
      await theirs.holder(ASHA, 'token-1', read(ASHA));
      expect(reads).toBe(1);
      stored.set(ASHA, holderOf(ASHA, 'manager'));
      const waited: Promise<unknown>[] = [];
      await requestContext.run({ requestId: 'r1', answerAfter: waited }, async () => {
        const updated: EventMap['member.updated'] = { userId: ASHA, messId: FIRST_MESS_ID };
        ours.onMemberUpdated(updated);
        expect(waited).toHaveLength(1);
        await Promise.all(waited);
      });
      // Once the change's answer may go, the other replica reads the member again.
      expect((await theirs.holder(ASHA, 'token-1', read(ASHA)))?.role).toBe('manager');
      expect(reads).toBe(2);
      expect(feed.published).toContainEqual(
        expect.objectContaining({ topic: TokenHolderCache.TOPIC, keys: [ASHA] }),
      );
    } finally {
      await here.stop();
      await there.stop();
    }
  });

  it('reads the database while its replica does not hear the invalidation feed', async () => {
    const feed = new InvalidationFeed();
    const deaf = feed.join();
    const cache = new TokenHolderCache(deaf);
    await cache.holder(ASHA, 'token-1', read(ASHA));
    await cache.holder(ASHA, 'token-1', read(ASHA));
    expect(reads).toBe(2);
  });

  it('drops what another replica changed, and everything when it missed messages', async () => {
    await cache.holder(ASHA, 'token-1', read(ASHA));
    await cache.holder(RAVI, 'token-2', read(RAVI));
    wire.fromAnotherReplica([RAVI]);
    await cache.holder(ASHA, 'token-1', read(ASHA));
    await cache.holder(RAVI, 'token-2', read(RAVI));
    expect(reads).toBe(3);
    wire.fromAnotherReplica('all');
    await cache.holder(ASHA, 'token-1', read(ASHA));
    expect(reads).toBe(4);
  });

  it('does not keep a read that was under way when its member changed', async () => {
    let finish!: (holder: TokenHolder) => void;
    const pending = cache.holder(
      ASHA,
      'token-1',
      () => new Promise<TokenHolder>((resolve) => (finish = resolve)),
    );
    void cache.forget([ASHA]); // the change commits while the read is in flight
    finish(holderOf(ASHA)); // the read saw the row before the change
    await pending;
    stored.set(ASHA, { ...holderOf(ASHA), revoked: true });
    expect((await cache.holder(ASHA, 'token-1', read(ASHA)))?.revoked).toBe(true);
  });

  it('reads again after TTL_MS', async () => {
    const now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now);
    try {
      await cache.holder(ASHA, 'token-1', read(ASHA));
      clock.mockReturnValue(now + TokenHolderCache.TTL_MS - 1);
      await cache.holder(ASHA, 'token-1', read(ASHA));
      expect(reads).toBe(1);
      clock.mockReturnValue(now + TokenHolderCache.TTL_MS);
      await cache.holder(ASHA, 'token-1', read(ASHA));
      expect(reads).toBe(2);
    } finally {
      clock.mockRestore();
    }
  });
});
