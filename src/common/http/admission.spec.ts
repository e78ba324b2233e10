import Fastify, { type FastifyInstance } from 'fastify';
import { BUSY, WorkLimiter } from '../concurrency/work-limiter';
import { registerAdmission } from './admission';

/** A real Fastify server with the admission hook and a route the test finishes by hand. */
async function serverWith(limiter: WorkLimiter) {
  // The test's fetch keeps its connections alive: close them with the server.
  const app: FastifyInstance = Fastify({ forceCloseConnections: true });
  registerAdmission(app, limiter);
  const gates: (() => void)[] = [];
  let handled = 0;
  app.get('/api/slow', async () => {
    handled += 1;
    await new Promise<void>((resolve) => gates.push(resolve));
    return { ok: true };
  });
  app.get('/api/live', async () => ({ status: 'ok' }));
  app.post('/api/auth/login', async () => ({ token: 'x' }));
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, address, gates, handled: () => handled };
}

/** Runs `test` against a fresh server with this limiter; opens every gate and closes the server after. */
async function withServer(
  limiter: WorkLimiter,
  test: (server: Awaited<ReturnType<typeof serverWith>>) => Promise<void>,
): Promise<void> {
  const server = await serverWith(limiter);
  try {
    await test(server);
  } finally {
    server.gates.forEach((open) => open());
    await server.app.close();
  }
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i += 1) await new Promise((r) => setTimeout(r, 10));
};

describe('registerAdmission', () => {
  it('serves `concurrency` requests at once, sheds the one that waits past the deadline with 503 and Retry-After', async () => {
    const limiter = new WorkLimiter(1, 100);
    await withServer(limiter, async ({ address, gates, handled }) => {
      const first = fetch(`${address}/api/slow`);
      await until(() => handled() === 1);
      const started = performance.now();
      const shed = await fetch(`${address}/api/slow`);
      expect(shed.status).toBe(503);
      expect(shed.headers.get('retry-after')).toBe('1');
      expect(await shed.json()).toEqual({ success: false, error: BUSY });
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(handled()).toBe(1); // the shed request never reached its handler
      // The liveness probe is always answered; a login waits in its own (hashing) queue, not in this one.
      expect((await fetch(`${address}/api/live`)).status).toBe(200);
      expect((await fetch(`${address}/api/auth/login`, { method: 'POST' })).status).toBe(200);
      gates[0]();
      expect((await first).status).toBe(200);
      await until(() => limiter.load.running === 0);
      expect(limiter.load).toEqual({ running: 0, waiting: 0 });
    });
  });

  it('lets a waiting request in when a slot frees, and frees the slot of a client that went away', async () => {
    const limiter = new WorkLimiter(1, 5_000);
    await withServer(limiter, async ({ address, gates, handled }) => {
      const abort = new AbortController();
      const gone = fetch(`${address}/api/slow`, { signal: abort.signal }).catch(() => undefined);
      await until(() => handled() === 1);
      const waiting = fetch(`${address}/api/slow`);
      await until(() => limiter.load.waiting === 1);
      abort.abort(); // the first client leaves while its handler still runs: its slot goes to the next
      await gone;
      await until(() => handled() === 2);
      expect(handled()).toBe(2);
      gates[1]();
      expect((await waiting).status).toBe(200);
    });
  });

  it('gives back at once the slot of a client that went away while it waited for one', async () => {
    const limiter = new WorkLimiter(1, 5_000);
    await withServer(limiter, async ({ address, gates, handled }) => {
      const first = fetch(`${address}/api/slow`);
      await until(() => handled() === 1);
      const abort = new AbortController();
      const gone = fetch(`${address}/api/slow`, { signal: abort.signal }).catch(() => undefined);
      await until(() => limiter.load.waiting === 1);
      abort.abort(); // leaves while still queued
      await gone;
      await new Promise((r) => setTimeout(r, 50)); // the server sees the connection close
      gates[0]();
      expect((await first).status).toBe(200);
      // The slot passed to the departed request comes straight back: nothing is held, the next request is served.
      await until(() => limiter.load.running === 0);
      expect(limiter.load).toEqual({ running: 0, waiting: 0 });
      expect(handled()).toBe(1);
      const next = fetch(`${address}/api/slow`);
      await until(() => handled() === 2);
      gates[1]();
      expect((await next).status).toBe(200);
    });
  });
});
