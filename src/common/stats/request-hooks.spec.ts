import Fastify from 'fastify';
import { PrometheusMetrics } from './prometheus';
import { registerRequestMetrics } from './request-hooks';

/** The in-flight gauge as Prometheus would scrape it. */
async function inFlight(prometheus: PrometheusMetrics): Promise<number> {
  const metric = await prometheus.registry.getSingleMetric('mess_http_requests_in_flight')!.get();
  return metric.values[0].value;
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (const deadline = Date.now() + 5_000; !(await check());) {
    if (Date.now() > deadline) throw new Error(`${what} within 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('request metrics hooks', () => {
  it('counts a request out when answered, and when its client leaves first (a POST with its body read too)', async () => {
    const prometheus = new PrometheusMetrics();
    const recorded: number[] = [];
    const app = Fastify({ forceCloseConnections: true });
    registerRequestMetrics(app, { record: (_ms, status) => recorded.push(status) }, prometheus);
    let arrived: () => void = () => undefined;
    const handled = new Promise<void>((resolve) => (arrived = resolve));
    let release: () => void = () => undefined;
    app.get('/api/meals', async () => ({ meals: [] }));
    app.post('/api/attendance/scan', async () => {
      arrived();
      await new Promise<void>((resolve) => (release = resolve));
      return { ok: true };
    });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      expect((await fetch(`${address}/api/meals`)).status).toBe(200);
      await until(async () => (await inFlight(prometheus)) === 0, 'the answered request not counted out');
      expect(recorded).toEqual([200]);

      const leaving = new AbortController();
      const sent = fetch(`${address}/api/attendance/scan`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ pass: 'p1.x.y' }),
        signal: leaving.signal,
      }).catch(() => 'aborted');
      await handled;
      expect(await inFlight(prometheus)).toBe(1);
      leaving.abort();
      expect(await sent).toBe('aborted');
      await until(async () => (await inFlight(prometheus)) === 0, 'the abandoned request not counted out');
      // Its handler answering later (to nobody) does not count it out a second time.
      release();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await inFlight(prometheus)).toBe(0);
    } finally {
      release();
      await app.close();
    }
  });
});
