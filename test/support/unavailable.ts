import { isDatabaseUnavailable } from '../../src/common/errors/database-errors';

/**
 * TEST_RETRY_UNAVAILABLE=<seconds>: the suite run against a Patroni cluster whose primary is switched
 * (scripts/ha/e2e-switchover.sh). What the database's brief absence costs a client, a 503 `Database unavailable` with
 * Retry-After, is sent again for that long, as a client of the service would; so is a fixture's own statement that
 * fails for want of the database. Other 503s (a busy queue) are what their tests are about. Unset: tried once.
 */
const retryForMs = () => Number(process.env.TEST_RETRY_UNAVAILABLE ?? 0) * 1000;
const PAUSE_MS = 500;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined> | Headers;
  body: unknown;
}

function saysDatabaseUnavailable(answer: Answer): boolean {
  if (answer.status !== 503) return false;
  const retryAfter =
    answer.headers instanceof Headers ? answer.headers.get('retry-after') : answer.headers['retry-after'];
  let body = answer.body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      return false;
    }
  }
  return !!retryAfter && (body as { error?: unknown } | undefined)?.error === 'Database unavailable';
}

/** Sends a request again while it answers 503 `Database unavailable`, under TEST_RETRY_UNAVAILABLE. */
export async function sendWhileUnavailable<T extends Answer>(send: () => Promise<T>): Promise<T> {
  for (const deadline = Date.now() + retryForMs(); ; await new Promise((r) => setTimeout(r, PAUSE_MS))) {
    const answer = await send();
    if (!saysDatabaseUnavailable(answer) || Date.now() > deadline) return answer;
  }
}

/** Runs a fixture's own statement again while it fails for want of the database, under TEST_RETRY_UNAVAILABLE. */
export async function whileUnavailable<T>(work: () => Promise<T>): Promise<T> {
  for (const deadline = Date.now() + retryForMs(); ; await new Promise((r) => setTimeout(r, PAUSE_MS))) {
    try {
      return await work();
    } catch (error) {
      if (!isDatabaseUnavailable(error) || Date.now() > deadline) throw error;
    }
  }
}
