import { Injectable } from '@nestjs/common';
import { CacheInvalidation } from '../../common/cache/cache-invalidation';
import type { DbOrTx } from '../../database/database';
import { MessesRepository, type MessLabel } from './messes.repository';
import type { MessRow, MessUpi } from './messes.schema';

const CACHE_TOPIC = 'messes';
const CACHE_MS = 5_000;

/**
 * Finds a mess by `_id` or slug for every request that names one: a short cache, dropped on every replica when a
 * mess is created or changed. Unknown names are not cached (a mess created on another replica is found at once).
 */
@Injectable()
export class MessDirectory {
  private readonly cached = new Map<string, { row: MessRow; at: number }>();
  private labelled?: { labels: Promise<ReadonlyMap<string, MessLabel>>; at: number };

  constructor(
    private readonly repository: MessesRepository,
    private readonly replicas: CacheInvalidation,
  ) {
    replicas.subscribe(CACHE_TOPIC, () => this.drop());
  }

  async find(idOrSlug: string): Promise<MessRow | undefined> {
    const key = idOrSlug.toLowerCase();
    const hit = this.cached.get(key);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.row;
    const row = await this.repository.find(key);
    if (row) {
      const at = Date.now();
      this.cached.set(row.id, { row, at });
      this.cached.set(row.slug, { row, at });
    }
    return row;
  }

  /** `{_id, slug, messName}` of every mess, by id: what a user object names as their mess. */
  labels(): Promise<ReadonlyMap<string, MessLabel>> {
    if (!this.labelled || Date.now() - this.labelled.at >= CACHE_MS) {
      const labels = this.repository.labels().then((rows) => new Map(rows.map((l) => [l._id, l])));
      this.labelled = { labels, at: Date.now() };
      labels.catch(() => (this.labelled = undefined));
    }
    return this.labelled.labels;
  }

  /** The label of one mess (a placeholder for an id that is not a mess, which a foreign key makes impossible). */
  async label(messId: string): Promise<MessLabel> {
    return (await this.labels()).get(messId) ?? { _id: messId, slug: '', messName: '' };
  }

  /** In the caller's transaction: locks a mess's row (FOR UPDATE) and returns it as it is now (an approval's, a
   * window close's capacity), or undefined. */
  lock(tx: DbOrTx, id: string): Promise<MessRow | undefined> {
    return this.repository.lock(id, tx);
  }

  /** In the caller's transaction: locks these messes' rows in id order (a move's) and returns those that exist. */
  lockMany(tx: DbOrTx, ids: readonly string[]): Promise<MessRow[]> {
    return this.repository.lockMany([...ids], tx);
  }

  /** In the caller's transaction: a new mess (`POST /messes`); a slug taken (also concurrently) is a unique
   * violation. The caller drops the directory (`changed`) after the commit. */
  create(
    tx: DbOrTx,
    values: { slug: string; capacity: number | null; upi: MessUpi | null },
  ): Promise<MessRow> {
    return this.repository.insert(values, tx);
  }

  /** In the caller's transaction: a mess's slug, capacity or UPI changed (its setup or replacement). The caller
   * drops the directory (`changed`) after the commit. */
  update(
    tx: DbOrTx,
    id: string,
    values: Partial<{ slug: string; capacity: number | null; upi: MessUpi | null }>,
  ): Promise<MessRow | undefined> {
    return this.repository.update(id, values, tx);
  }

  /** Every mess of the deployment, read now (uncached: a window's messes, their capacities). */
  all(): Promise<MessRow[]> {
    return this.repository.all();
  }

  private drop(): void {
    this.cached.clear();
    this.labelled = undefined;
  }

  /** After a mess is created or changed: here and on the other replicas. */
  changed(): void {
    this.drop();
    this.replicas.publish(CACHE_TOPIC, 'all');
  }
}
