// The HTTP client of the benchmark, in its own thread (its own heap and garbage collector), so the client's work
// does not pause the service being measured. Asks the main thread to clear the analytics cache when told to.
import { parentPort } from 'node:worker_threads';

interface Job {
  id: number;
  url: string;
  headers: Record<string, string>;
  runs: number;
  warmup: number;
  clearBeforeEach: boolean;
}

let pendingClear: (() => void) | undefined;

const clearCache = () =>
  new Promise<void>((resolve) => {
    pendingClear = resolve;
    parentPort!.postMessage({ type: 'clear' });
  });

parentPort!.on('message', (message: { type: 'job'; job: Job } | { type: 'cleared' }) => {
  if (message.type === 'cleared') {
    pendingClear?.();
    return;
  }
  void run(message.job);
});

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
