import { Injectable } from '@nestjs/common';
import { OnDomainEvent } from '../../common/events/domain-event-bus';
import { CacheInvalidation, type Invalidated } from '../../common/cache/cache-invalidation';
import { type MemberUpdatedEvent } from '../../common/events/event-map';
import { requestContext } from '../../common/context/request-context';
import type { TokenHolder } from './revoked-tokens.repository';

interface Entry {
  holder: TokenHolder;
  expires: number;
}

/**
 * The member behind each token seen lately, so that an authenticated request does not read them again (a round
 * trip and its row mapping on every request of every route, the largest single cost left in the per-request
 * profile).
 *
 * Once a change of a member is acknowledged, no replica answers from their row as it was before (a move, a role, a
 * rejection, an erasure, a logout take effect "from that moment", docs/operations.md):
 * - every write of a member's row (role, status, mess, name, password, …) publishes MemberUpdated after its commit,
 *   and a logout forgets its member: here at once, and on the other replicas by a confirmed invalidation
 *   (`CacheInvalidation.publishConfirmed`); the request that made the change answers only once every live replica
 *   has dropped the member, or after the lease at most (`requestContext.answerAfter`);
 * - a replica answers from here only while its lease on the invalidation feed holds (`trusted()`), else it reads
 *   the database: a replica that cannot hear the feed never answers from an entry it may have missed the end of;
 * - a read that was under way when something was forgotten is not kept (the generation moved), so it cannot put
 *   back what the change made stale;
 * - after a gap in its subscription a replica drops everything, and no entry outlives TTL_MS (a change made outside
 *   the service, in SQL, is seen within it).
 * Only tokens whose member exists are kept; a revoked token is kept as revoked.
 */
@Injectable()
export class TokenHolderCache {
  static readonly TOPIC = 'token-holders';
  static readonly TTL_MS = 5_000;
  static readonly MAX_ENTRIES = 20_000;
  /** By token id (jti); Map order is insertion order, the oldest first out when full. */
  private readonly entries = new Map<string, Entry>();
  private generation = 0;
  hits = 0;
  misses = 0;

  constructor(private readonly replicas: CacheInvalidation) {
    replicas.subscribe(TokenHolderCache.TOPIC, (members: Invalidated) => this.drop(members));
  }

  async holder(
    userId: string,
    tokenId: string,
    read: () => Promise<TokenHolder | undefined>,
  ): Promise<TokenHolder | undefined> {
    if (!this.replicas.trusted()) {
      this.misses += 1;
      return read();
    }
    const now = Date.now();
    const entry = this.entries.get(tokenId);
    if (entry && entry.expires > now && entry.holder.id === userId) {
      this.hits += 1;
      return entry.holder;
    }
    this.misses += 1;
    const generation = this.generation;
    const holder = await read();
    if (holder && generation === this.generation) {
      this.entries.delete(tokenId);
      if (this.entries.size >= TokenHolderCache.MAX_ENTRIES)
        this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(tokenId, { holder, expires: now + TokenHolderCache.TTL_MS });
    }
    return holder;
  }

  /** Members forgotten since the last confirmed invalidation was sent, and its promise. */
  private pending?: { members: Set<string>; confirmed: Promise<void> };

  /**
   * These members' tokens are read again: here at once, on the other replicas before the returned promise resolves
   * (which the request under way, if any, waits for before it answers). Members forgotten in one turn of the event
   * loop (a batch move publishes one event per member) travel in one confirmed invalidation.
   */
  forget(userIds: string[]): Promise<void> {
    this.drop(userIds);
    if (!this.pending) {
      const members = new Set<string>();
      const confirmed = new Promise<void>((resolve) =>
        setImmediate(() => {
          this.pending = undefined;
          void this.replicas.publishConfirmed(TokenHolderCache.TOPIC, [...members]).then(resolve);
        }),
      );
      this.pending = { members, confirmed };
    }
    for (const id of userIds) this.pending.members.add(id);
    const { confirmed } = this.pending;
    requestContext.answerAfter(confirmed);
    return confirmed;
  }

  @OnDomainEvent('member.updated')
  onMemberUpdated(event: MemberUpdatedEvent): void {
    void this.forget([event.userId]);
  }

  private drop(members: Invalidated): void {
    this.generation += 1;
    if (members === 'all') return this.entries.clear();
    const gone = new Set(members);
    // Expired entries go too (never answered from anyway): a run of drops (a batch move publishes one per member)
    // then walks only the tokens seen in the last TTL_MS.
    const now = Date.now();
    for (const [tokenId, entry] of this.entries)
      if (gone.has(entry.holder.id) || entry.expires <= now) this.entries.delete(tokenId);
  }
}
