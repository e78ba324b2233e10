import Fastify from 'fastify';
import { abandonPost, until } from '../../../test/support/abandoned-request';
import { PrometheusMetrics } from './prometheus';
import { registerRequestMetrics } from './request-hooks';

/** The in-flight gauge as Prometheus would scrape it. */
async function inFlight(prometheus: PrometheusMetrics): Promise<number> {
  const metric = await prometheus.registry.getSingleMetric('mess_http_requests_in_flight')!.get();
  return metric.values[0].value;
}

describe('request metrics hooks', () => {
  it('counts a request out when answered, and when its client leaves first (a POST with its body read too)', async () => {
    const prometheus = new PrometheusMetrics();
    const recorded: number[] = [];
    const app = Fastify({ forceCloseConnections: true });
    registerRequestMetrics(app, { record: (_ms, status) => recorded.push(status) }, prometheus);
    app.get('/api/meals', async () => ({ meals: [] }));
    let release: () => void = () => undefined;
    try {
      release = await abandonPost(app, async () => expect(await inFlight(prometheus)).toBe(1));
      await until(async () => (await inFlight(prometheus)) === 0, 'the abandoned request not counted out');
      // Its handler answering later (to nobody) does not count it out a second time.
      release();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await inFlight(prometheus)).toBe(0);

      const address = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      expect((await fetch(`${address}/api/meals`)).status).toBe(200);
      await until(async () => (await inFlight(prometheus)) === 0, 'the answered request not counted out');
      expect(recorded).toEqual([200]);
    } finally {
      release();
      await app.close();
      prometheus.onModuleDestroy();
    }
  });
});
