import type { FastifyInstance } from 'fastify';

/** Polls `check` every 10 ms until it holds; fails naming `what` after 5 s. */
export async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (const deadline = Date.now() + 5_000; !(await check());) {
    if (Date.now() > deadline) throw new Error(`${what} within 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A request whose client leaves before the answer, after its body was read: `app` (hooks registered, not listening
 * yet) gets `POST /api/attendance/scan`, whose handler waits; a real client posts a JSON body and aborts once the
 * handler runs, after `whileHandled`. Answers the handler's release (call it before closing the app).
 */
export async function abandonPost(
  app: FastifyInstance,
  whileHandled: () => Promise<void> = async () => undefined,
): Promise<() => void> {
  let arrived: () => void = () => undefined;
  const handled = new Promise<void>((resolve) => (arrived = resolve));
  let release: () => void = () => undefined;
  app.post('/api/attendance/scan', async () => {
    arrived();
    await new Promise<void>((resolve) => (release = resolve));
    return { ok: true };
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const leaving = new AbortController();
  const sent = fetch(`${address}/api/attendance/scan`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ pass: 'p1.x.y' }),
    signal: leaving.signal,
  }).catch(() => 'aborted');
  await handled;
  await whileHandled();
  leaving.abort();
  if ((await sent) !== 'aborted') throw new Error('the client was answered before it left');
  return () => release();
}
