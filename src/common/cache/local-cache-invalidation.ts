import { CacheInvalidation } from './cache-invalidation';

/** The embedded engine is one process: nobody else to tell. */
export class LocalCacheInvalidation extends CacheInvalidation {
  readonly transport = 'none' as const;
  protected async send(): Promise<void> {}
}
