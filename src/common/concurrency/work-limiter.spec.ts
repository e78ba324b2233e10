import { BUSY, WorkLimiter, WorkQueueTimeoutError } from './work-limiter';

/** A piece of work the test finishes by hand. */
function gate() {
  let open!: () => void;
  const done = new Promise<void>((resolve) => (open = resolve));
  return { done, open };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('WorkLimiter', () => {
  it('runs at most `concurrency` at a time and starts the waiting in arrival order', async () => {
    const limiter = new WorkLimiter(2, 10_000);
    const gates = [gate(), gate(), gate(), gate()];
    const started: number[] = [];
    const runs = gates.map((g, i) =>
      limiter.run(async () => {
        started.push(i);
        await g.done;
        return i * 10;
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    expect(limiter.load).toEqual({ running: 2, waiting: 2 });
    gates[1].open();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    gates[0].open();
    gates[2].open();
    gates[3].open();
    expect(await Promise.all(runs)).toEqual([0, 10, 20, 30]);
    expect(started).toEqual([0, 1, 2, 3]);
    expect(limiter.load).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses work that waited past its deadline with a 503 and Retry-After, and never runs it', async () => {
    const limiter = new WorkLimiter(1, 30);
    const busy = gate();
    const first = limiter.run(() => busy.done);
    let ranLate = false;
    const late = limiter.run(async () => {
      ranLate = true;
    });
    const error = (await late.then(
      () => undefined,
      (e: unknown) => e,
    )) as WorkQueueTimeoutError;
    expect(error).toBeInstanceOf(WorkQueueTimeoutError);
    expect(error.getStatus()).toBe(503);
    expect(error.getResponse()).toEqual({ success: false, error: BUSY, retryAfter: 1 });
    expect(limiter.load).toEqual({ running: 1, waiting: 0 });
    busy.open();
    await first;
    expect(ranLate).toBe(false);
    // the slot is free again
    expect(await limiter.run(async () => 'next')).toBe('next');
    expect(limiter.load).toEqual({ running: 0, waiting: 0 });
  });

  it('frees the slot when the work fails', async () => {
    const limiter = new WorkLimiter(1, 1_000);
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limiter.run(async () => 1)).toBe(1);
    expect(limiter.load).toEqual({ running: 0, waiting: 0 });
  });

  it('needs at least one slot', () => {
    expect(() => new WorkLimiter(0, 100)).toThrow();
  });

  it('refuses at once, without queueing, when `maxWaiting` are already waiting', async () => {
    const limiter = new WorkLimiter(1, 10_000, 1);
    const busy = gate();
    const first = limiter.run(() => busy.done);
    const queued = limiter.run(async () => 'queued');
    const started = performance.now();
    await expect(limiter.run(async () => 'third')).rejects.toBeInstanceOf(WorkQueueTimeoutError);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(limiter.load).toEqual({ running: 1, waiting: 1 });
    busy.open();
    await first;
    expect(await queued).toBe('queued');
  });

  it('hands out slots whose release is idempotent (enter)', async () => {
    const limiter = new WorkLimiter(1, 10_000);
    const release = await limiter.enter();
    let second = false;
    const next = limiter.enter().then((r) => {
      second = true;
      return r;
    });
    await tick();
    expect(second).toBe(false);
    release();
    release(); // a second call must not free a slot that is not ours
    const releaseNext = await next;
    expect(limiter.load).toEqual({ running: 1, waiting: 0 });
    releaseNext();
    expect(limiter.load).toEqual({ running: 0, waiting: 0 });
  });
});
