// The HTTP client of the benchmark, in its own thread (its own heap and garbage collector), so the client's work
// does not pause the service being measured. Asks the main thread to clear the analytics cache when told to.
// Two kinds of job: `job`, sequential GETs of one URL; `load`, a list of requests sent by N concurrent users, each
// pausing a random think time between its requests (the counter's scanners, members fetching their passes).
import { parentPort } from 'node:worker_threads';

interface Job {
  id: number;
  url: string;
  headers: Record<string, string>;
  runs: number;
  warmup: number;
  clearBeforeEach: boolean;
}

export interface LoadRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadJob {
  id: number;
  requests: LoadRequest[];
  /** Users sending at once; each takes the next request of the list when its previous one is answered. */
  concurrency: number;
  /** Mean pause of a user between two requests (uniform in [0.5, 1.5] × this); 0 for none. */
  thinkMs: number;
}

export interface LoadResult {
  samples: number[];
  statuses: Record<string, number>;
  seconds: number;
}

let pendingClear: (() => void) | undefined;

const clearCache = () =>
  new Promise<void>((resolve) => {
    pendingClear = resolve;
    parentPort!.postMessage({ type: 'clear' });
  });

parentPort!.on(
  'message',
  (message: { type: 'job'; job: Job } | { type: 'load'; job: LoadJob } | { type: 'cleared' }) => {
    if (message.type === 'cleared') {
      pendingClear?.();
      return;
    }
    if (message.type === 'load') void load(message.job);
    else void run(message.job);
  },
);

async function run(job: Job): Promise<void> {
  const samples: number[] = [];
  for (let i = 0; i < job.warmup + job.runs; i += 1) {
    if (job.clearBeforeEach) await clearCache();
    const started = performance.now();
    const res = await fetch(job.url, { headers: job.headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${job.url}: ${res.status}`);
    if (i >= job.warmup) samples.push(performance.now() - started);
  }
  parentPort!.postMessage({ type: 'done', id: job.id, samples });
}

async function load(job: LoadJob): Promise<void> {
  const samples: number[] = [];
  const statuses: Record<string, number> = {};
  let next = 0;
  const began = performance.now();
  const user = async () => {
    // Users start spread over one think time, as scanners at a counter do.
    if (job.thinkMs) await pause(Math.random() * job.thinkMs);
    while (next < job.requests.length) {
      const request = job.requests[next];
      next += 1;
      const started = performance.now();
      const res = await fetch(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.body,
      });
      await res.arrayBuffer();
      samples.push(performance.now() - started);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      if (job.thinkMs) await pause(job.thinkMs * (0.5 + Math.random()));
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, user));
  const result: LoadResult = { samples, statuses, seconds: (performance.now() - began) / 1000 };
  parentPort!.postMessage({ type: 'done', id: job.id, result });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
