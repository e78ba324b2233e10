import Fastify from 'fastify';
import { Writable } from 'node:stream';
import { pinoHttp } from 'pino-http';
import { abandonPost, until } from '../../../test/support/abandoned-request';
import { requestContext } from '../context/request-context';
import { loggerOptions, registerRequestLog } from './request-log';

/** The application's logger as nestjs-pino builds it (pino-http wraps the serializers), writing into `lines`. */
function collectingLogger() {
  const lines: Record<string, any>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pinoHttp(loggerOptions('info'), stream).logger, lines };
}

describe('request log', () => {
  it('writes one line per request with its id, method, URL, status and time, none for probes, 5xx at warn/error', async () => {
    const { logger, lines } = collectingLogger();
    const app = Fastify();
    registerRequestLog(app, () => logger);
    app.get('/api/meals', async () => ({ meals: [] }));
    app.get('/api/live', async () => ({ status: 'ok' }));
    app.get('/api/busy', async (_request, reply) => reply.status(503).send({ error: 'busy' }));
    app.get('/api/broken', async (_request, reply) => reply.status(500).send({ error: 'bug' }));
    try {
      await app.inject({ url: '/api/meals?date=2030-03-10', headers: { authorization: 'Bearer t' } });
      await app.inject({ url: '/api/live' });
      await app.inject({ url: '/api/busy' });
      await app.inject({ url: '/api/broken' });
      const requests = lines.filter((line) => line.req);
      expect(requests).toEqual([
        {
          level: 30,
          time: expect.any(Number),
          pid: process.pid,
          hostname: expect.any(String),
          req: { id: expect.any(String), method: 'GET', url: '/api/meals?date=2030-03-10' },
          res: { statusCode: 200 },
          responseTime: expect.any(Number),
          msg: 'request completed',
        },
        expect.objectContaining({
          level: 40,
          req: expect.objectContaining({ url: '/api/busy' }),
          res: { statusCode: 503 },
          msg: 'request errored',
        }),
        expect.objectContaining({
          level: 50,
          req: expect.objectContaining({ url: '/api/broken' }),
          res: { statusCode: 500 },
          msg: 'request errored',
        }),
      ]);
      // Headers (the bearer token) never reach the line.
      expect(JSON.stringify(lines)).not.toContain('Bearer');
    } finally {
      await app.close();
    }
  });

  it('logs a request whose client left before the answer, a POST with its body read too', async () => {
    const { logger, lines } = collectingLogger();
    const app = Fastify({ forceCloseConnections: true });
    registerRequestLog(app, () => logger);
    const release = await abandonPost(app);
    try {
      await until(() => lines.some((line) => line.msg === 'request aborted'), 'no "request aborted" line');
      expect(lines.find((line) => line.msg === 'request aborted')).toMatchObject({
        level: 30,
        req: { method: 'POST', url: '/api/attendance/scan' },
      });
    } finally {
      release();
      await app.close();
    }
  });

  it('names the request on lines logged while its handler runs, and censors secrets in what is logged', () => {
    const { logger, lines } = collectingLogger();
    requestContext.run({ requestId: 'req-1' }, () =>
      logger.info({ member: { email: 'a@b.co', password: 'hunter2', phone: '+919876543210' } }, 'inside'),
    );
    logger.info('outside');
    expect(lines[0]).toMatchObject({
      req: { id: 'req-1' },
      member: { email: 'a@b.co', password: '[redacted]', phone: '[redacted]' },
      msg: 'inside',
    });
    expect(lines[1].req).toBeUndefined();
  });
});
