import { Injectable } from '@nestjs/common';
import { OnDomainEvent } from '../../common/events/domain-event-bus';
import { CacheInvalidation, type Invalidated } from '../../common/cache/cache-invalidation';
import { type MemberUpdatedEvent } from '../../common/events/event-map';
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
 * It never answers from a member's row as it was before a change that has committed:
 * - every write of a member's row (role, status, name, password, …) publishes MemberUpdated after its commit, and a
 *   logout forgets its member at once, here, and on the other replicas through the cache-invalidation transport
 *   (Redis or PostgreSQL LISTEN/NOTIFY: within milliseconds);
 * - a read that was under way when something was forgotten is not kept (the generation moved), so it cannot put
 *   back what the change made stale;
 * - while the transport is down each replica drops everything on reconnect, and no entry outlives TTL_MS (a change
 *   made outside the service, in SQL, is seen within it).
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

  /** These members' tokens are read again, here at once and on the other replicas within milliseconds. */
  forget(userIds: string[]): void {
    this.drop(userIds);
    this.replicas.publish(TokenHolderCache.TOPIC, userIds);
  }

  @OnDomainEvent('member.updated')
  onMemberUpdated(event: MemberUpdatedEvent): void {
    this.forget([event.userId]);
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
