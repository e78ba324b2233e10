// The thread `restoreOffThread` starts: restores one backup into a scratch directory and answers with its digests.
import { parentPort, workerData } from 'node:worker_threads';
import { restoreInto } from './restored-copy';

const { file, pgdata } = workerData as { file: string; pgdata: string };
restoreInto(file, pgdata).then(
  (restored) => parentPort!.postMessage({ restored }),
  (error: unknown) =>
    parentPort!.postMessage({ error: error instanceof Error ? error.message : String(error) }),
);
