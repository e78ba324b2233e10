/**
 * Writes items in groups without waiting to gather them: the first item is written at once; items that arrive while
 * a write is under way are written together by the next one. Alone, an item costs one write as before; in a burst,
 * one statement (one round trip, one commit) serves many callers. Each caller's promise settles when the write that
 * held its item did. When a group's write fails, each of its items is written again on its own, so one bad item
 * fails only its own caller.
 */
export class GroupCommit<T> {
  private queued: { item: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private writing = false;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    /** The most items one write takes; the rest wait for the next. */
    private readonly maxGroup = 500,
  ) {}

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queued.push({ item, resolve, reject });
      if (!this.writing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.writing = true;
    try {
      while (this.queued.length) {
        const group = this.queued.splice(0, this.maxGroup);
        try {
          await this.write(group.map((q) => q.item));
          for (const q of group) q.resolve();
        } catch (error) {
          if (group.length === 1) {
            group[0].reject(error);
            continue;
          }
          for (const q of group) await this.write([q.item]).then(q.resolve, (e: unknown) => q.reject(e));
        }
      }
    } finally {
      this.writing = false;
    }
  }
}
