import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Outages } from '../../common/outages/outages';
import { currentMessId, inMess } from '../../common/tenancy/mess-scope';

/** A month of one mess: each mess has its own stored inputs, rebuilt acting in that mess. */
const keyOf = (messId: string, month: string) => `${messId} ${month}`;
const partsOf = (key: string) => {
  const [messId, month] = key.split(' ');
  return { messId, month };
};

/**
 * Coalesces recalculation of monthly bills. Writes mark their month dirty; a dirty month is recalculated once after
 * a short quiet period (DEBOUNCE_MS, at most MAX_WAIT_MS after the first mark), however many writes came in. A reader
 * that needs a dirty month recalculates it at once instead of waiting, and concurrent requests for the same month
 * share one run. MAX_WAIT_MS bounds only how stale the stored inputs get while nobody reads them: during a rush of
 * writes (the counter at dinner: a scan a second or more) a rebuild every second (~0.1 s of database CPU for a month
 * of 2,000 members) took the CPU the scans needed (scan p95 195 → 49 ms with it out of the way).
 *
 * Months are per mess (the mess the code runs for when it marks or reads one), and a month is rebuilt acting in
 * its mess, whichever request's timer runs the flush.
 */
@Injectable()
export class ShareRecalculator implements OnModuleDestroy {
  static readonly DEBOUNCE_MS = 200;
  static readonly MAX_WAIT_MS = 15_000;
  /** Months rebuilt at once by a flush (a reader's own rebuild does not wait for these). */
  static readonly FLUSH_AT_ONCE = 2;
  private readonly logger = new Logger(ShareRecalculator.name);
  /** Months of a mess (`keyOf`) written since their last rebuild. */
  private readonly dirty = new Set<string>();
  /**
   * Months another replica wrote into, which names no mess: stale in every mess, each until it is rebuilt here
   * (the set holds the messes rebuilt since).
   */
  private readonly staleEverywhere = new Map<string, Set<string>>();
  private readonly running = new Map<string, Promise<void>>();
  private timer?: NodeJS.Timeout;
  private firstMarkAt = 0;
  private recalculate: (month: string) => Promise<void> = async () => undefined;
  /** How many recalculations ran: the proof that a burst of writes costs a handful of runs. */
  runs = 0;

  constructor(private readonly outages: Outages) {}

  /** The billing service supplies the work; kept out of the constructor to avoid a dependency cycle. */
  use(recalculate: (month: string) => Promise<void>): void {
    this.recalculate = recalculate;
  }

  markDirty(months: Iterable<string>): void {
    const messId = currentMessId();
    for (const month of months) this.dirty.add(keyOf(messId, month));
    const now = Date.now();
    if (!this.timer) this.firstMarkAt = now;
    clearTimeout(this.timer);
    const wait = Math.max(
      0,
      Math.min(ShareRecalculator.DEBOUNCE_MS, this.firstMarkAt + ShareRecalculator.MAX_WAIT_MS - now),
    );
    this.timer = setTimeout(() => void this.flush(), wait);
    this.timer.unref();
  }

  /**
   * Another replica wrote into these months (and rebuilds them there): the next reader here rebuilds first rather
   * than answer from inputs that may predate that write. No run is scheduled here.
   */
  markStale(months: Iterable<string>): void {
    for (const month of months) this.staleEverywhere.set(month, new Set());
  }

  /** Whether `month` of the mess the code runs for waits for a rebuild. */
  isDirty(month: string): boolean {
    return this.isDirtyIn(currentMessId(), month);
  }

  /** Recalculates `month` (of the mess the code runs for) now if it is dirty (or `force`), joining a run in progress. */
  async ensureFresh(month: string, force = false): Promise<void> {
    const messId = currentMessId();
    const inFlight = this.running.get(keyOf(messId, month));
    if (inFlight) await inFlight;
    if (force || this.isDirtyIn(messId, month)) await this.run(messId, month);
  }

  /** Recalculates every month of the mess the code runs for that waits for a rebuild (a list of months reads them all). */
  async ensureAllFresh(): Promise<void> {
    const messId = currentMessId();
    const months = new Set([
      ...[...this.dirty].map(partsOf).flatMap((k) => (k.messId === messId ? [k.month] : [])),
      ...[...this.staleEverywhere.keys()].filter((month) => this.isDirtyIn(messId, month)),
    ]);
    for (const month of months) await this.ensureFresh(month);
  }

  async flush(): Promise<void> {
    this.timer = undefined;
    const keys = [...this.dirty];
    // A few at a time: during a university's dinner rush every mess's month is dirty, and fifty rebuilds at once
    // held every pooled connection for a rebuild's length while the scans waited (p95 1.3 s, and 503s).
    for (let i = 0; i < keys.length; i += ShareRecalculator.FLUSH_AT_ONCE) {
      await Promise.all(
        keys
          .slice(i, i + ShareRecalculator.FLUSH_AT_ONCE)
          .map(partsOf)
          .map(({ messId, month }) =>
            // The month stays dirty (run() marks it again): a database outage is the outage's one warning.
            inMess(messId, () => this.ensureFresh(month)).catch((error: unknown) =>
              this.outages.jobFailed(error, 'the bill recalculation', this.logger, 'Recalculation failed', {
                messId,
                month,
              }),
            ),
          ),
      );
    }
  }

  private isDirtyIn(messId: string, month: string): boolean {
    const rebuilt = this.staleEverywhere.get(month);
    return this.dirty.has(keyOf(messId, month)) || (rebuilt !== undefined && !rebuilt.has(messId));
  }

  private run(messId: string, month: string): Promise<void> {
    const key = keyOf(messId, month);
    const existing = this.running.get(key);
    if (existing) return existing;
    this.dirty.delete(key);
    const rebuilt = this.staleEverywhere.get(month);
    rebuilt?.add(messId);
    const started = performance.now();
    const work = inMess(messId, () => this.recalculate(month))
      .then(() => {
        this.runs += 1;
        this.logger.debug(
          { messId, month, ms: Math.round(performance.now() - started) },
          'Month recalculated',
        );
      })
      .catch((error: unknown) => {
        this.dirty.add(key); // try again on the next read or flush
        throw error;
      })
      .finally(() => this.running.delete(key));
    this.running.set(key, work);
    return work;
  }

  onModuleDestroy(): void {
    clearTimeout(this.timer);
  }
}
