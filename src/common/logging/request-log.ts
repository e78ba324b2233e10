import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger, LoggerOptions } from 'pino';
import { requestContext } from '../context/request-context';
import { logSafeError } from '../errors/log-safe-error';
import { onRequestClosed } from '../http/request-closed';

/** The application's logger (nestjs-pino builds it from these, through pino-http, which wraps the serializers). */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    // Never log credentials, tokens or personal numbers.
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.token', '*.phone'],
      censor: '[redacted]',
    },
    serializers: {
      // Whatever logs a request or a reply: these fields only (never headers or bodies).
      req: (req: { id: string; method: string; url: string }) => ({
        id: req.id,
        method: req.method,
        url: req.url,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      // Database errors without their SQL text and parameters (password hashes, phones); see log-safe-error.ts.
      err: logSafeError,
    },
    mixin: requestLogMixin,
  };
}

/** Probes and scrapes (route templates), every few seconds from Kubernetes and Prometheus: no line each. */
const QUIET_ROUTES: ReadonlySet<string> = new Set(['/api/live', '/api/ready', '/api/metrics/prometheus']);

/** What a request line says of its request: the id (also the `x-request-id` header), method and URL. */
const describe = (request: FastifyRequest) => ({ id: request.id, method: request.method, url: request.url });

/**
 * One line per request, written by Fastify's `onResponse` hook on the application's root logger:
 * `{req: {id, method, url}, res: {statusCode}, responseTime, msg: "request completed"}` (`request errored` for a 5xx,
 * at level error, warn for a deliberate 503; `request aborted` when the client left before the answer).
 *
 * Not pino-http's middleware: as a Nest middleware it put every request through Nest's middleware runner and built a
 * child logger per request, ~90 µs of CPU per request in `npm run bench:cost` for the same line. Lines logged while
 * a handler runs still carry the request's id, from the request context (see `requestLogMixin`).
 */
export function registerRequestLog(fastify: FastifyInstance, logger: () => Logger): void {
  // A child made once, for these lines only, whose fields are built here from known values: no serializer to
  // re-shape them (pino-http's would first copy every header of the raw request), and nothing to redact (the line
  // holds no header, body or member field; a URL's query is logged as sent, as it always was).
  let lines: Logger | undefined;
  const lineLogger = () =>
    (lines ??= logger().child({}, { serializers: { req: same, res: same }, redact: { paths: [] } }));
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    if (!QUIET_ROUTES.has(request.routeOptions.url ?? '')) {
      const line = {
        req: describe(request),
        res: { statusCode: reply.statusCode },
        responseTime: Math.round(reply.elapsedTime),
      };
      // A deliberate 503 (overload, the database away) is a warning: a shed burst must not read as a burst of bugs.
      if (reply.statusCode === 503) lineLogger().warn(line, 'request errored');
      else if (reply.statusCode >= 500) lineLogger().error(line, 'request errored');
      else lineLogger().info(line, 'request completed');
    }
    done();
  });
  onRequestClosed(fastify, (request, reply) => {
    if (!reply.sent) lineLogger().info({ req: describe(request) }, 'request aborted');
  });
}

const same = <T>(value: T): T => value;

/** pino's `mixin`: a line logged while a handler runs names its request (`req.id`), as the request line does. */
function requestLogMixin(): object {
  const id = requestContext.requestId();
  return id ? { req: { id } } : {};
}
